"""What the worker says about an exception the candidate raised: its kind (compile or runtime),
a one-line description located at the candidate's own line, and a traceback trimmed to the
candidate's frames (kept in the job folder; kgb's and the libraries' frames say nothing a
kernel author can act on)."""

from __future__ import annotations

import traceback
from pathlib import Path

from kgb.errors import gpu_memory_exhausted
from kgb.protocol import ErrorKind

_COMPILE_ERRORS = {"CompilationError", "CompileTimeAssertionFailure",
                   "UnsupportedLanguageConstruct"}


def error_kind(exc: BaseException, kernel_path: str | None = None) -> ErrorKind:
    if _limitation(exc):
        return ErrorKind.INTERPRETER
    if gpu_memory_exhausted(exc):
        return ErrorKind.GPU_MEMORY
    if kernel_path is not None and kernel_body_error(exc, kernel_path) is not None:
        return ErrorKind.COMPILE
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & _COMPILE_ERRORS:
        return ErrorKind.COMPILE
    # Triton's code generator also raises plain errors, e.g. RuntimeError("Unsupported function
    # referenced") for a Python helper called in a kernel: still a compile error.
    frames = traceback.extract_tb(exc.__traceback__)
    if any("/triton/compiler/" in f.filename.replace("\\", "/") for f in frames[-3:]):
        return ErrorKind.COMPILE
    return ErrorKind.RUNTIME


def _limitation(exc: BaseException) -> BaseException | None:
    """The InterpreterLimitation behind `exc` (the interpreter wraps kernel errors)."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 8:
        if type(current).__name__ == "InterpreterLimitation":
            return current
        current, seen = current.__cause__ or current.__context__, seen + 1
    return None


def kernel_body_error(exc: BaseException, kernel_path: str) -> BaseException | None:
    """Under the CPU interpreter, the error a @triton.jit body of the candidate raised (a frame
    of the candidate's file below the interpreter's): a non-power-of-two `tl.arange`, an
    unknown `tl.` function, a shape or type error. Compiled Triton refuses all of these when it
    compiles the kernel, so they are compile errors, located at the kernel's own line — not a
    crash at the launch line. A failed device assertion is a run-time error on a GPU too."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 8:
        inside = False
        for frame in traceback.extract_tb(current.__traceback__):
            name = frame.filename.replace("\\", "/")
            if "/triton/runtime/interpreter.py" in name:
                inside = True
            elif inside and _is_candidate(frame.filename, kernel_path):
                return None if isinstance(current, AssertionError) else current
        current, seen = current.__cause__ or current.__context__, seen + 1
    return None


def describe(exc: BaseException, kernel_path: str) -> str:
    """`Type: first line ... last line (file.py:LINE)`, at most ~500 characters."""
    exc = _limitation(exc) or kernel_body_error(exc, kernel_path) or exc
    where = candidate_line(exc, kernel_path)
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    # Triton's compile errors put the location first and the cause last: keep both. An error
    # inside a called @jit function is chained: its cause (`raise ... from`) is the reason.
    kept = [lines[0], lines[-1]] if lines else []
    root = _root_cause(exc)
    if root is not exc:
        root_lines = [ln.strip() for ln in str(root).strip().splitlines() if ln.strip()]
        kept.append(root_lines[-1] if root_lines else type(root).__name__)
    detail = " ... ".join(dict.fromkeys(kept))
    text = f"{type(exc).__name__}: {detail}"
    if len(text) > 500:  # the cause matters most: cut the middle
        text = text[:240] + " ... " + text[-255:]
    return f"{text} ({where})" if where else text


def _root_cause(exc: BaseException) -> BaseException:
    """The innermost explicit cause (`raise ... from`), at most 8 links down."""
    for _ in range(8):
        if exc.__cause__ is None:
            break
        exc = exc.__cause__
    return exc


def candidate_line(exc: BaseException, kernel_path: str) -> str | None:
    """`file.py:LINE` of the innermost frame in the kernel file, if any."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if _is_candidate(frame.filename, kernel_path):
            return f"{Path(frame.filename).name}:{frame.lineno}"
    return None


def candidate_traceback(exc: BaseException, kernel_path: str) -> str:
    """The traceback with only the kernel file's frames, then the exception line."""
    inner = kernel_body_error(exc, kernel_path)
    chain = [exc] + ([inner] if inner is not None and inner is not exc else [])
    frames = [f for e in chain for f in traceback.extract_tb(e.__traceback__)
              if _is_candidate(f.filename, kernel_path)]
    body = "".join(traceback.format_list(frames))
    last = chain[-1]
    tail = "".join(traceback.format_exception_only(type(last), last))
    return f"Traceback (the kernel file's frames only):\n{body}{tail}"[-20000:]


def _is_candidate(filename: str, kernel_path: str) -> bool:
    return filename == kernel_path or Path(filename).name == Path(kernel_path).name
