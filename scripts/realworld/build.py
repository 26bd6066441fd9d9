"""Build kgb submissions from real third-party Triton kernels (see scripts/realworld/README).

    python scripts/realworld/build.py [--only PACKAGE[,PACKAGE]] [--no-download]

1. `pip download --no-deps` each pinned package (wheel or sdist) into .realworld/dist/;
2. for every adapter of scripts/realworld/adapters.py, extract the named @triton.jit functions
   and module-level names (tl.constexpr globals, tables) from the package's source file with
   `ast`, verbatim, together with the Triton/torch/math imports they need;
3. write one self-contained kernel file per task: the extracted code, then our glue (`run`);
   one submission per package (a second one, `<package>-2`, when a package has two kernels for
   one task) under .realworld/submissions/<package>/ with its manifest.toml.

Nothing third-party is committed: .realworld/ is git-ignored."""

from __future__ import annotations

import argparse
import ast
import datetime
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from adapters import ADAPTERS, PACKAGES, Adapter  # noqa: E402

WORK = ROOT / ".realworld"
DIST = WORK / "dist"
SUBS = WORK / "submissions"

HEADER = '''"""{task}: {package} {version}, {source}
Kernel code below the first marker is extracted verbatim (by scripts/realworld/build.py) from
that file of the package; the glue below the second marker is ours (scripts/realworld/adapters.py)."""
import math

import torch
import triton
import triton.language as tl
'''


def download(dist: str, version: str) -> Path:
    DIST.mkdir(parents=True, exist_ok=True)
    found = _find_archive(dist, version)
    if found:
        return found
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           "-d", str(DIST), f"{dist}=={version}"]
    subprocess.run(cmd, check=True)
    found = _find_archive(dist, version)
    if not found:
        raise SystemExit(f"pip download gave no archive for {dist}=={version}")
    return found


def _find_archive(dist: str, version: str) -> Path | None:
    stem = dist.replace("-", "_").lower()
    for p in sorted(DIST.iterdir()) if DIST.exists() else []:
        name = p.name.lower().replace("-", "_")
        if name.startswith(f"{stem}_{version}".lower()) and p.suffix in (".whl", ".gz", ".zip"):
            return p
    return None


class Archive:
    """Read source files of a wheel or an sdist without unpacking it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip = zipfile.ZipFile(path) if path.suffix in (".whl", ".zip") else None
        self._tar = tarfile.open(path) if self._zip is None else None
        self._cache: dict[str, str] = {}

    def read(self, rel: str) -> str:
        if rel not in self._cache:
            if self._zip is not None:
                self._cache[rel] = self._zip.read(rel).decode()
            else:  # sdist: <name>-<version>/<rel>
                member = next(m for m in self._tar.getmembers()
                              if m.name.split("/", 1)[-1] == rel)
                self._cache[rel] = self._tar.extractfile(member).read().decode()
        return self._cache[rel]


def _decorator_kept(dec: ast.expr, drop: tuple[str, ...], keep: tuple[str, ...] = ()) -> bool:
    text = ast.unparse(dec)
    if any(d in text for d in drop):
        return False
    return text.startswith(("triton.", "tl.") + keep)


def extract(source: str, names: tuple[str, ...], drop: tuple[str, ...], where: str,
            keep: tuple[str, ...] = ()) -> str:
    """The module-level definitions `names` of `source`, verbatim and in file order: functions
    (decorators other than triton.* dropped, e.g. a package's custom caching wrappers) and
    assignments (constexpr globals, tables)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    # "name!else" / "name!if": a definition inside a module-level `if` (e.g. a helper defined
    # one way or another by an environment flag): the branch the package takes by default
    branch = {n.split("!")[0]: n.split("!")[1] for n in names if "!" in n}
    wanted = {n.split("!")[0] for n in names}
    pieces: list[tuple[int, str]] = []
    seen: set[str] = set()
    body = list(tree.body)

    def branches(node: ast.If) -> None:  # "if": the first branch, "else": the last (elif chain)
        last = node.orelse
        while len(last) == 1 and isinstance(last[0], ast.If):
            last = last[0].orelse
        for side, stmts in (("if", node.body), ("else", last)):
            for sub in stmts:
                if isinstance(sub, (ast.FunctionDef, ast.Assign)):
                    name = sub.name if isinstance(sub, ast.FunctionDef) else getattr(
                        sub.targets[0], "id", None)
                    if name in branch and branch[name] == side:
                        body.append(sub)

    for node in tree.body:
        if isinstance(node, ast.If):
            branches(node)
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in wanted:
            decorators = [d for d in node.decorator_list if _decorator_kept(d, drop, keep)]
            dropped = [ast.unparse(d) for d in node.decorator_list if d not in decorators]
            head = "".join(f"@{ast.get_source_segment(source, d)}\n" for d in decorators)
            note = "".join(f"# (decorator @{d} of the package dropped)\n" for d in dropped)
            text = textwrap.dedent("\n".join(lines[node.lineno - 1:node.end_lineno]))
            pieces.append((node.lineno, note + head + text))
            seen.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            hit = [t.id for t in targets if isinstance(t, ast.Name) and t.id in wanted]
            if hit:
                pieces.append((node.lineno, textwrap.dedent(
                    "\n".join(lines[node.lineno - 1:node.end_lineno]))))
                seen.update(hit)
    missing = wanted - seen
    if missing:
        raise SystemExit(f"{where}: not found at module level: {sorted(missing)}")
    return "\n\n\n".join(text for _, text in sorted(pieces))


def kernel_file(ad: Adapter, archive: Archive) -> str:
    pkg = PACKAGES[ad.package]
    parts = [HEADER.format(task=ad.task, package=pkg.dist, version=pkg.version, source=ad.source)]
    if ad.imports:
        parts.append(ad.imports.strip() + "\n")
    if ad.prelude:
        parts.append("# --- glue: the package-level names the kernels use, as the package sets "
                     "them\n" + ad.prelude.strip() + "\n")
    parts.append(f"# --- extracted from {pkg.dist} {pkg.version}: {ad.source}")
    for rel, names in ((ad.source, ad.kernels),) + tuple(ad.helpers):
        if rel != ad.source:
            parts.append(f"# --- extracted from {pkg.dist} {pkg.version}: {rel}")
        parts.append(extract(archive.read(rel), tuple(names), ad.drop_decorators,
                             f"{ad.package}:{rel}", ad.keep_decorators) + "\n")
    parts.append("# --- glue (ours): the task's entry, launching the kernels as the package does")
    parts.append(ad.glue.strip() + "\n")
    return "\n\n".join(parts)


def submission_name(ad: Adapter) -> str:
    return ad.package + (f"-{ad.variant}" if ad.variant else "")


def build(only: set[str] | None, no_download: bool) -> dict[str, list[Adapter]]:
    archives: dict[str, Archive] = {}
    by_sub: dict[str, list[Adapter]] = defaultdict(list)
    for ad in ADAPTERS:
        if only and ad.package not in only:
            continue
        if ad.unfit:
            continue
        pkg = PACKAGES[ad.package]
        if ad.package not in archives:
            path = _find_archive(pkg.dist, pkg.version) if no_download else \
                download(pkg.dist, pkg.version)
            if path is None:
                raise SystemExit(f"{pkg.dist}=={pkg.version} not in {DIST}")
            archives[ad.package] = Archive(path)
        by_sub[submission_name(ad)].append(ad)
    for sub, ads in by_sub.items():
        tasks = [a.task for a in ads]
        dup = {t for t in tasks if tasks.count(t) > 1}
        if dup:
            raise SystemExit(f"{sub}: two adapters for {sorted(dup)}: give one a variant")
        folder = SUBS / sub
        if folder.exists():
            for p in sorted(folder.rglob("*"), reverse=True):
                p.unlink() if p.is_file() else p.rmdir()
        (folder / "kernels").mkdir(parents=True)
        pkg = PACKAGES[ads[0].package]
        manifest = [
            "# Built by scripts/realworld/build.py from the package downloaded with pip; "
            "do not edit.",
            "[submission]", f'name = "realworld-{sub}"',
            f'generator = "{pkg.dist} {pkg.version} (third-party kernels, extracted)"',
            'model = "none"', f'created = "{datetime.date.today().isoformat()}"', "",
        ]
        for ad in ads:
            rel = f"kernels/{ad.task}.py"
            (folder / rel).write_text(kernel_file(ad, archives[ad.package]))
            manifest += ["[[kernels]]", f'task = "{ad.task}"', f'file = "{rel}"', ""]
        (folder / "manifest.toml").write_text("\n".join(manifest))
    return by_sub


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", help="comma-separated package names (adapters.PACKAGES keys)")
    parser.add_argument("--no-download", action="store_true",
                        help="use the archives already in .realworld/dist")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    by_sub = build(only, args.no_download)
    total = 0
    print(f"{'submission':<16} {'kernels':>7}  tasks")
    for sub, ads in sorted(by_sub.items()):
        total += len(ads)
        print(f"{sub:<16} {len(ads):>7}  " + ", ".join(a.task for a in ads))
    unfit = [a for a in ADAPTERS if a.unfit and (not only or a.package in only)]
    print(f"{total} kernels in {len(by_sub)} submissions under {SUBS.relative_to(ROOT)}; "
          f"{len(unfit)} kernels listed as not fitting any task")
    return 0


if __name__ == "__main__":
    sys.exit(main())
