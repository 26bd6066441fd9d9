"""Where a run's jobs execute: one small interface (`JobPlacement`) with two backends — local
slots on this machine (`LocalPlacement`) and Ray actors on a cluster (`RayPlacement`, imported
only with `--ray`). Planning and grading stay in `kgb.runner`; a placement only runs a planned
job somewhere and hands back its finished record, as `kgb.sandbox` only isolates."""

from kgb.placement.base import JobPlacement, LocalPlacement

__all__ = ["JobPlacement", "LocalPlacement"]
