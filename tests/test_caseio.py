"""Input fingerprints: equal inputs agree, any changed, swapped or reshaped byte disagrees."""

import torch

from kgb.runner.caseio import fingerprint


def test_equal_inputs_share_a_fingerprint_across_copies_and_views():
    x = torch.randn(7, dtype=torch.float16)
    view = x[1:]  # odd byte count and a storage offset not on an 8-byte boundary
    assert fingerprint((view, 3)) == fingerprint((view.clone(), 3))


def test_one_changed_element_changes_the_fingerprint():
    a = torch.randn(1001, 3)
    b = a.clone()
    b[500, 1] += 1e-3
    assert fingerprint((a,)) != fingerprint((b,))


def test_swapped_elements_change_the_fingerprint():
    a = torch.arange(16, dtype=torch.int64)
    b = a.clone()
    b[[0, 1]] = b[[1, 0]]
    assert fingerprint((a,)) != fingerprint((b,))


def test_shape_dtype_and_scalars_are_part_of_the_fingerprint():
    a = torch.zeros(4, 4)
    assert fingerprint((a,)) != fingerprint((a.reshape(2, 8),))
    assert fingerprint((a,)) != fingerprint((a.view(torch.int32),))
    assert fingerprint((a, 0.5)) != fingerprint((a, 0.25))


def test_bool_tensors_are_fingerprinted():
    mask = torch.tensor([True, False, True])
    assert fingerprint((mask,)) != fingerprint((~mask,))
