"""SCP-TCG-JP-J 購買部版, chapter 4 (zones): its state and fold (``state``), what each
viewer may see (``views``) and its log's sentences (``sentences``)."""
