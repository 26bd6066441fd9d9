import torch.nn.functional as F


def reference(x, groups):
    # F.channel_shuffle on CUDA views its input, which a strided x cannot be (the CPU path
    # copies): shuffle a contiguous copy, the same values.
    return F.channel_shuffle(x.contiguous(), groups)
