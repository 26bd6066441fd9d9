"""Timing (design.md, Timing): the loop both workers run — the candidate's in the sandbox, the
baselines' in the trusted judge — the L2 flush, the profiler's second clock, the supervisor
channel, the hardware's peaks. Neutral zone: imports nothing trusted."""
