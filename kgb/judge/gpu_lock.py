"""The judge's end of its GPU's timing lock (kgb/runner/gpu_share.py, issue 24).

On a GPU several jobs share (`--jobs N` with timing on), the judge times PyTorch's baselines and
the empty loop only inside an exclusive window, every job in flight frozen and the GPU drained —
and nothing else: its references and comparisons run beside the jobs' own untimed work, and the
host freezes the judge, like a job, during any other holder's window. The judge asks on its
answer channel (`lock +`, `lock -`); the host (kgb/runner/judge_pool.py) answers on its stdin
`granted exclusive`, `granted shared` (the GPU did not drain: no baseline counts) or `none`
(the GPU is not shared: nothing to hold). Without a host (a judge called in process), nothing
is asked."""

from __future__ import annotations

from typing import IO

_channel: tuple[IO[str], IO[str]] | None = None  # (answers out, host lines in)


def connect(answers: IO[str], host: IO[str]) -> None:
    global _channel
    _channel = (answers, host)


class Window:
    """The lock held from one timing into the next (each grant freezes every job and drains
    the GPU: one window for a job's baselines, given back only around torch.compile's
    compiles). `alone`: whether the GPU is the judge's alone in the window now held."""

    def __init__(self) -> None:
        self.held, self.alone = False, False

    def take(self) -> bool:
        if not self.held:
            self.alone = self._ask()
            self.held = True
        return self.alone

    def give(self) -> None:
        if self.held:
            self.held = False
            if _channel is not None and self._granted:
                _channel[0].write("lock -\n")
                _channel[0].flush()

    def _ask(self) -> bool:
        self._granted = False
        if _channel is None:
            return True
        answers, host = _channel
        answers.write("lock +\n")
        answers.flush()
        reply = host.readline().strip()
        self._granted = reply.startswith("granted")
        return reply in ("granted exclusive", "none")

    def __enter__(self) -> Window:
        return self

    def __exit__(self, *exc: object) -> None:
        self.give()
