"""Metrics as pure functions of measured data (tritonbench's habit: one definition shared by
tables, JSON and plots). Reports never compute a metric themselves."""
