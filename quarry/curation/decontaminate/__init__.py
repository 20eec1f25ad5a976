"""Decontamination: the evaluation index (test split and benchmark n-grams), the overlaps of
every training document with it, and the decision to drop or flag."""
