"""幻想郷夢紀行 §4: its state and fold, what each viewer sees, one sentence per event."""
