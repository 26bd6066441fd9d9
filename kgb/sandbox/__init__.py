"""Isolation for untrusted candidate workers: one interface, backends registered by name."""

from kgb.sandbox.base import (
                              ExecResult,
                              Limits,
                              Sandbox,
                              SandboxRequest,
                              SandboxUnavailable,
                              available_backends,
                              create_sandbox,
                              register_backend,
)

__all__ = ["ExecResult", "Limits", "Sandbox", "SandboxRequest", "SandboxUnavailable",
           "available_backends", "create_sandbox", "register_backend"]
