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


def children(idle: bool = False) -> list[str]:
    """This process's kgb.serve.child processes; `idle`: only those that started nothing (a
    warm slot's spare, waiting for its request)."""
    import psutil

    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if not idle or not proc.children():
                found.append(" ".join(proc.cmdline()))
        except psutil.Error:
            pass
    return [c for c in found if "kgb.serve.child" in c]


@pytest.mark.parametrize("warm", ["off", "on"])
def test_a_cancelled_verification_ends_its_child_and_frees_the_slot(suite, warm):
    """Warm on, the slot keeps one spare child (started, holding nothing): the cancelled
    request's child and its sandbox are gone all the same."""
    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu", sandbox="process",
                                warm=warm) as v:
            task = asyncio.create_task(v.verify("activation.relu", RELU))
            await asyncio.sleep(1.5)
            assert children(), "the verification runs in a child process"
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            spares = 1 if warm == "on" else 0
            for _ in range(60):  # SIGTERM, then SIGKILL after the grace: gone within ~10 s
                if len(children()) <= spares and len(children(idle=True)) == len(children()):
                    return
                await asyncio.sleep(0.25)
            raise AssertionError(f"still running: {children()}")

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 15  # not the verification's own ~10-20 s
    assert not children(), "the Verifier's close ends its spare children too"


@pytest.mark.slow
def test_a_warm_slot_prepares_the_next_request_ahead_with_the_same_verdicts(suite):
    """slots=1, warm on: while one request runs, the next waits prepared (its child started,
    layer 1 done, its sandbox started and held); each still gets its own child and sandbox."""
    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu", sandbox="process",
                                warm="on") as v:
            assert v.warm
            return await v.verify_many([("activation.relu", RELU_WRONG),
                                        ("activation.relu", RELU), ("activation.relu", RELU)])

    wrong, honest, again = asyncio.run(main())
    assert wrong.verdict == "incorrect" and not wrong.infra_failure
    assert honest.passed and again.passed and honest.status == "judged"
    for result in (honest, again):  # held, ready, while the request before it ran
        assert result.entry["phases"]["waited_for_slot_s"] > 0.5, result.entry["phases"]
    assert not children()


def test_warm_deadlines_and_cancels_of_prepared_requests_are_infra_errors(suite):
    """A running request past its deadline and one cancelled while prepared ahead: each
    child ended, the deadline answered infra_error (counted from the request's own turn, so
    the third request, held meanwhile, gets its full second), nothing left after close."""
    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu", sandbox="process",
                                warm="on", deadline_s=1.0) as v:
            first, second, third = (asyncio.create_task(v.verify("activation.relu", RELU))
                                    for _ in range(3))
            await asyncio.sleep(0.5)
            second.cancel()
            with pytest.raises(asyncio.CancelledError):
                await second
            return await first, await third

    first, third = asyncio.run(main())
    for result in (first, third):
        assert result.status == "infra_error" and "deadline" in result.message, result
    assert not children()


def test_warm_must_be_auto_on_or_off(suite):
    with pytest.raises(BadInput, match="warm='yes'"):
        kgb.Verifier(tasks=suite, warm="yes")


def test_several_slots_on_a_gpu_are_refused(monkeypatch, suite):
    monkeypatch.setattr("kgb.runner.verify.resolve_device", lambda _: "cuda:0")
    with pytest.raises(BadInput, match="one kernel per GPU"), \
            kgb.Verifier(slots=2, tasks=suite, device="cuda"):
        pass
