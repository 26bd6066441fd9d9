"""report.md and report.html beside report.json: written whenever report.json is (a run, a
regrade), so the human reports never disagree with the record."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kgb.jsonfiles import write_text_atomic

MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"


def write_human_reports(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write both files; a missing plotting library costs the HTML file, never the run."""
    from kgb.report.markdown import render_markdown

    written = [write_text_atomic(out_dir / MARKDOWN_FILE, render_markdown(report))]
    try:
        from kgb.report.html import render_html

        written.append(write_text_atomic(out_dir / HTML_FILE, render_html(report)))
    except ImportError as exc:  # matplotlib absent on a hand-made environment
        print(f"kgb: {HTML_FILE} not written ({exc.name or exc} is not installed; "
              "`pip install -e .` installs it)", file=sys.stderr)
    return written
