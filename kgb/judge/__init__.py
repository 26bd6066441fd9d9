"""TRUSTED zone: the reference worker (`python -m kgb.judge`) and the comparison. It imports
nothing from kgb.worker."""
