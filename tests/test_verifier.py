"""kgb.Verifier, the async API a generation loop uses: the same typed results as
kgb.verify_kernel, `slots` at a time; a bad task id raises at once; kgb's own failure is an
infra_error result (drop the sample), never a verdict; a cancelled verification frees its
slot (its child process is ended)."""

from __future__ import annotations

import asyncio
import time

import pytest
from conftest import ROOT, trimmed_suite

import kgb
from kgb.errors import BadInput

RELU = (ROOT / "tasks/Activation/relu/solution.py").read_text()
RELU_WRONG = RELU.replace("tl.where(x > 0.0, x, 0.0)", "tl.where(x > 0.0, x, 0.1 * x)")


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return trimmed_suite(tmp_path_factory.mktemp("suite"), ["activation.relu"], shapes=1)


@pytest.mark.slow
def test_verify_many_returns_verify_kernels_results_in_order(suite):
    async def main():
        async with kgb.Verifier(slots=2, tasks=suite, device="cpu", sandbox="process") as v:
            return await v.verify_many([("activation.relu", RELU_WRONG),
                                        ("activation.relu", RELU)])

    wrong, honest = asyncio.run(main())
    assert isinstance(honest, kgb.JobResult) and honest.passed and honest.status == "judged"
    assert honest.reward_ready == {"correct": True, "speedup": None, "infra_failure": False}
    assert wrong.verdict == "incorrect" and "activation.relu: incorrect" in wrong.feedback
    assert wrong.entry["coverage"]["checked"] > 0 and not wrong.infra_failure


def test_an_unknown_task_raises_before_anything_runs(suite):
    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu", sandbox="process") as v:
            await v.verify_many([("activation.relu", RELU), ("activation.rleu", RELU)])

    with pytest.raises(BadInput, match=r"did you mean activation\.relu"):
        asyncio.run(main())


def test_kgbs_own_failure_is_an_infra_error_result(suite):
    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu",
                                sandbox="no-such-backend") as v:
            return await v.verify("activation.relu", RELU)

    result = asyncio.run(main())
    assert result.status == "infra_error" and result.infra_failure and not result.passed
    assert result.verdict == "infra_error" and result.verdict not in ("incorrect", "crashed")
    assert result.reward_ready["infra_failure"] and "drop the sample" in result.feedback


def children() -> list[str]:
    import psutil

    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            found.append(" ".join(proc.cmdline()))
        except psutil.Error:
            pass
    return [c for c in found if "kgb.serve.child" in c]


def test_a_cancelled_verification_ends_its_child_and_frees_the_slot(suite):
    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu", sandbox="process") as v:
            task = asyncio.create_task(v.verify("activation.relu", RELU))
            await asyncio.sleep(1.5)
            assert children(), "the verification runs in a child process"
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            for _ in range(60):  # SIGTERM, then SIGKILL after the grace: gone within ~10 s
                if not children():
                    return
                await asyncio.sleep(0.25)
            raise AssertionError(f"still running: {children()}")

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 15  # not the verification's own ~10-20 s


def test_several_slots_on_a_gpu_are_refused(monkeypatch, suite):
    monkeypatch.setattr("kgb.runner.verify.resolve_device", lambda _: "cuda:0")
    with pytest.raises(BadInput, match="one kernel per GPU"), \
            kgb.Verifier(slots=2, tasks=suite, device="cuda"):
        pass
