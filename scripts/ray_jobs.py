"""Where each job of a run's time went: one row per job of OUT (a run, or a batch's members),
from the files kgb leaves in every job folder (phases.json, exec.json, judge.json,
placement.json) and, on Ray runs, report.json's `ray` section (the actor's and the host's own
seconds per job). Prints a TSV table and totals; `--tsv FILE` / `--json FILE` also write it as
one small file (the GPU device tool brings back shallow, few files).

  python scripts/ray_jobs.py OUT [--tsv jobs.tsv] [--json jobs.json]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

COLUMNS = ("submission", "task", "node", "slot", "wall", "sandbox", "worker", "startup",
           "waited", "judge", "ref", "grade", "retried",
           # Ray only: the actor's seconds (lock wait, prepare, finish, pack) and the host's
           # (round trip from the call to the answer in hand, unpack)
           "lock_wait", "prepare", "finish", "pack", "round_trip", "host_wait", "unpack",
           "answer_kb",
           # Ray only: when the host sent the job and had its answer, on the run's clock
           "sent_at", "answered_at",
           # Ray only: times a full actor gave the job back to run where a place freed first
           "withdrawn")
TIMELINE = ("sent_at", "answered_at")  # points in time: never summed


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _runs(out: Path) -> list[tuple[str, Path]]:
    if (out / "jobs").is_dir():
        return [("", out)]
    return sorted((p.name, p) for p in out.iterdir() if (p / "jobs").is_dir())


def rows(out: Path) -> list[dict[str, Any]]:
    found = []
    for name, run in _runs(out):
        report = _read(run / "report.json") or {}
        ray_jobs = (report.get("ray") or {}).get("jobs") or {}
        for job in sorted(p for p in (run / "jobs").iterdir() if p.is_dir()):
            phases = _read(job / "phases.json") or {}
            execution = _read(job / "exec.json") or {}
            judged = _read(job / "judge.json") or {}
            placement = _read(job / "placement.json") or {}
            judge_phases = {p["name"]: p["seconds"] for p in judged.get("phases", [])}
            ref = sum(s for k, s in judge_phases.items() if k.startswith("cases"))
            ray = ray_jobs.get(job.name) or {}
            found.append({
                "submission": name, "task": job.name,
                "node": (placement.get("node_ip") or "") + ("/" + placement["actor"]
                                                           if placement.get("actor") else ""),
                "slot": placement.get("slot") or _read(job / "plan.json").get("slot", ""),
                "wall": phases.get("total_s"), "sandbox": phases.get("sandbox_s"),
                "worker": execution.get("worker_s"), "startup": execution.get("startup_s"),
                "waited": phases.get("waited_for_slot_s"), "judge": phases.get("judge_s"),
                "ref": round(ref, 3) if judge_phases else None, "grade": phases.get("grade_s"),
                "retried": len(placement.get("retries") or ()),
                **{k: ray.get(k) for k in COLUMNS[13:]}})
    return found


def busy_by_node(table: list[dict[str, Any]]) -> dict[str, tuple[int, float]]:
    """Per actor (node/actor) or slot: its jobs and the seconds it spent on them (the actor's
    `finish` on Ray, the job's wall otherwise); beside the run's wall, how busy each GPU was."""
    found: dict[str, tuple[int, float]] = {}
    for row in table:
        key = row["node"] or row["slot"] or "?"
        seconds = row["finish"] if row["finish"] is not None else row["wall"] or 0.0
        count, busy = found.get(key, (0, 0.0))
        found[key] = (count + 1, busy + seconds)
    return dict(sorted(found.items()))


def timeline(table: list[dict[str, Any]], places: int) -> dict[str, float] | None:
    """Where a Ray run's places stood idle, from its jobs' sent_at/answered_at (the run's clock
    starts at the connect): `first_sent` (the start: the cluster joined, the actors ready, the
    plan), `last_sent` (no job left to hand out after it), `last_answered`, and `occupancy`,
    the jobs' time with the host (sent to answered) over `places` x (last_answered -
    first_sent). None without the columns (a local run, or an older kgb's)."""
    spans = [(r["sent_at"], r["answered_at"]) for r in table
             if isinstance(r.get("sent_at"), (int, float))
             and isinstance(r.get("answered_at"), (int, float))]
    if not spans or places < 1:
        return None
    first = min(s for s, _ in spans)
    last = max(a for _, a in spans)
    held = sum(a - s for s, a in spans)
    return {"first_sent": round(first, 2), "last_sent": round(max(s for s, _ in spans), 2),
            "last_answered": round(last, 2),
            "occupancy": round(held / (places * (last - first)), 3) if last > first else 0.0}


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tsv", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--places", type=int, default=1,
                        help="jobs at once over the run's actors (GPUs x --jobs): the timeline's "
                             "occupancy")
    args = parser.parse_args()
    if not args.out.is_dir():
        print(f"{args.out}: no such run folder", file=sys.stderr)
        return 2
    table = rows(args.out)
    times = timeline(table, args.places)
    lines = ["\t".join(COLUMNS)] + ["\t".join(_cell(r[k]) for k in COLUMNS) for r in table]
    sums = {k: round(sum(r[k] for r in table if isinstance(r[k], (int, float))), 2)
            for k in COLUMNS[4:] if k not in TIMELINE}
    ray_run = (_read(args.out / "ray.json") or
               next(((_read(p / "report.json") or {}).get("ray", {}).get("run")
                     for _, p in _runs(args.out)), None))
    text = "\n".join(lines) + f"\n# {len(table)} jobs; sums: " + \
        " ".join(f"{k}={v}" for k, v in sums.items()) + \
        "".join(f"\n# {node}: {count} jobs, busy {busy:.1f} s" for node, (count, busy)
                in busy_by_node(table).items()) + \
        (f"\n# ray run: {json.dumps(ray_run)}" if ray_run else "") + \
        (f"\n# timeline ({args.places} places): {json.dumps(times)}" if times else "") + "\n"
    print(text, end="")
    if args.tsv:
        args.tsv.write_text(text)
    if args.json:
        args.json.write_text(json.dumps({"jobs": table, "sums": sums, "ray_run": ray_run,
                                         "busy": busy_by_node(table), "timeline": times},
                                        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
