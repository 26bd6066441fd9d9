"""Plan jobs, run candidates in sandboxes, judge them on the trusted side."""
