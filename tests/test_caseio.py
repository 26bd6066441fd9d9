"""Input fingerprints: equal inputs agree, any changed, swapped or reshaped byte disagrees."""

import torch

from kgb.tasks.casegen import fingerprint


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


def test_relayout_keeps_values_and_breaks_contiguity():
    from kgb.tasks.casegen import PADDED, TRANSPOSED, relayout

    x = torch.randn(5, 7)
    padded, transposed = relayout(x, PADDED), relayout(x, TRANSPOSED)
    for view in (padded, transposed):
        assert torch.equal(view, x) and not view.is_contiguous()
    assert padded.stride() == (7 + 8, 1)  # 32 bytes of float32 padding per row
    row_storage = torch.empty(0).set_(padded.untyped_storage()).view(5, 15)
    assert torch.isnan(row_storage[:, 7:]).all()  # a kernel reading the padding gets NaN
    assert transposed.stride() == (1, 5)
    assert relayout(3.5, PADDED) == 3.5 and relayout(torch.arange(4), TRANSPOSED).is_contiguous()


def test_a_stride_ignoring_kernel_reads_nan_from_the_padding():
    from kgb.tasks.casegen import PADDED, relayout

    x = relayout(torch.randn(3, 4), PADDED)
    naive_rows = torch.empty(0).set_(x.untyped_storage()).view(-1)[: x.numel()].view(3, 4)
    assert torch.isnan(naive_rows.sum(dim=1)[1:]).all()
