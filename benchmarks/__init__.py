"""kubenb benchmarks: each compares kubenb with the bare minimum in the same run."""
