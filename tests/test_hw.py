"""The peaks behind the roofline floor (kgb.bench.hw): a calibration may raise a datasheet
figure (a lower floor never rejects an honest kernel), but not past what the part can do —
events timed on another GPU's idle stream measure nothing, and believing them would lower the
floor until D307 never fires."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgb.bench import hw

NAME = "NVIDIA H100 80GB HBM3"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def test_a_measurement_beyond_the_part_is_named():
    sheet = hw.datasheet(NAME)
    assert sheet is not None and sheet.bandwidth_gbps == 3350.0
    honest = replace(sheet, source="calibrated", bandwidth_gbps=3010.0,
                     tflops={**sheet.tflops, "float16": 760.0})
    assert hw.implausible(honest, sheet) is None
    assert hw.implausible(honest, None) is None  # no datasheet: nothing to hold it against
    idle_stream = replace(honest, bandwidth_gbps=690_000.0)
    assert "bandwidth measured 690000 GB/s" in hw.implausible(idle_stream, sheet)
    fast_gemm = replace(honest, tflops={**honest.tflops, "bfloat16": 4000.0})
    assert "bfloat16 TFLOP/s measured 4000" in hw.implausible(fast_gemm, sheet)


def test_the_floor_takes_a_higher_calibration_but_not_an_impossible_one(cache):
    sheet = hw.datasheet(NAME)
    hw.save_calibration(replace(sheet, source="calibrated", bandwidth_gbps=3500.0))
    assert hw.floor_peaks(NAME).bandwidth_gbps == 3500.0
    hw.save_calibration(replace(sheet, source="calibrated", bandwidth_gbps=690_000.0))
    assert hw.floor_peaks(NAME).bandwidth_gbps == 3350.0  # the datasheet's alone


@pytest.mark.parametrize("name, part", [
    ("NVIDIA H100 80GB HBM3", "H100"), ("NVIDIA H100 PCIe", "H100 PCIe"),
    ("NVIDIA H200", "H200"), ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
    ("NVIDIA A100-SXM4-40GB", "A100"), ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe"),
    ("NVIDIA H100 NVL", "H100 NVL"), ("NVIDIA L40S", "L40S"), ("NVIDIA L40", "L40"),
    ("NVIDIA L4", "L4"), ("NVIDIA GeForce RTX 4090", "RTX 4090"),
    ("AMD Instinct MI300X", "MI300X"), ("NVIDIA GeForce RTX 3060", None)])
def test_each_part_gets_its_own_datasheet(name, part):
    """A part whose name contains another's (L40 and L4, H100 NVL and H100) must not take the
    other's figures: a lower bandwidth than the part's puts the floor above honest kernels."""
    sheet = hw.datasheet(name)
    assert (sheet.source if sheet else None) == (f"datasheet: {part}" if part else None)
