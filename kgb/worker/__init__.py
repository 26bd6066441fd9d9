"""UNTRUSTED zone: everything imported inside the sandbox next to the candidate. It imports
nothing from the trusted zones (runner, judge, anticheat, report, cost); only the neutral
modules kgb.protocol, kgb.jsonfiles, kgb.errors and kgb.tasks.{inputs,casegen}."""
