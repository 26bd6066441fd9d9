import torch
import torch.nn.functional as F


def reference(logits, target, softcap):
    z = softcap * torch.tanh(logits.double() / softcap)
    return F.cross_entropy(z, target, ignore_index=-100).float()


def baseline(logits, target, softcap):
    # HF Gemma2ForCausalLM: logits / cap, tanh, * cap in float32, then cross_entropy
    z = torch.tanh(logits.float() / softcap) * softcap
    return F.cross_entropy(z, target, ignore_index=-100)
