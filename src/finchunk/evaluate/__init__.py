"""Evaluation: gold passages, coverage, recall@k, budgets, breakdowns by question type."""
