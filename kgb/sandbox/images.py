"""Runner images for the docker backend.

Two modes:
- `host` (the default; CI and offline machines): a minimal root filesystem built here, with no
  registry — folders, the /bin → usr/bin style links of a merged-/usr host, and an /etc with
  only passwd, group and nsswitch.conf — imported with `docker import` and tagged by the
  SHA-256 of its content (`kgb-host:<digest>`), so it is built once per distinct content.
  The sandbox mounts the host's /usr (and real /bin, /lib... folders on hosts without merged
  /usr) and the Python runtime read-only at run time.
- any other reference (built from images/Dockerfile.cpu or images/Dockerfile.cuda): used as it
  is, resolved to its content-addressed image id when the sandbox is created; the worker's
  Python is the one named by the image's `org.kgb.python` label.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile

HOST_REPOSITORY = "kgb-host"
HOST_LAYOUT_VERSION = "1"  # bump when the layout below changes
PYTHON_LABEL = "org.kgb.python"
MERGED_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
SBIN_TOOLS = ("ldconfig", "ldconfig.real")  # bound into the image's own /sbin

_PASSWD = ("root:x:0:0:root:/root:/usr/sbin/nologin\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
_GROUP = "root:x:0:\nnogroup:x:65534:\n"
_NSSWITCH = "passwd: files\ngroup: files\nhosts: files\n"


def host_mounts() -> list[str]:
    """Host folders the `host` image expects bound read-only at the same path."""
    mounts = ["/usr"]
    for name in MERGED_DIRS:
        path = "/" + name
        # /sbin stays an empty folder in the image: docker binds its init at /sbin/docker-init
        if name != "sbin" and os.path.isdir(path) and not os.path.islink(path):
            mounts.append(path)
    return mounts


def host_rootfs() -> bytes:
    """The `host` image's root filesystem as a reproducible tar (fixed owners and times)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        def add(name: str, kind: bytes, data: bytes = b"", target: str = "",
                mode: int = 0o755) -> None:
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.mtime = kind, mode, 0
            info.uname = info.gname = "root"
            info.linkname = target
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data else None)

        for folder in ("dev", "proc", "sys", "tmp", "etc", "usr", "sbin", "run", "work"):
            add(folder, tarfile.DIRTYPE, mode=0o1777 if folder == "tmp" else 0o755)
        for name in MERGED_DIRS:
            path = "/" + name
            if name != "sbin" and os.path.islink(path):
                add(name, tarfile.SYMTYPE, target=os.readlink(path))
            elif name != "sbin" and os.path.isdir(path):
                add(name, tarfile.DIRTYPE)
        for name, text in (("passwd", _PASSWD), ("group", _GROUP), ("nsswitch.conf", _NSSWITCH)):
            add(f"etc/{name}", tarfile.REGTYPE, text.encode(), mode=0o644)
    return buf.getvalue()


def host_tag(rootfs: bytes) -> str:
    digest = hashlib.sha256(HOST_LAYOUT_VERSION.encode() + rootfs).hexdigest()[:20]
    return f"{HOST_REPOSITORY}:{digest}"


def ensure_host_image(client) -> tuple[str, str]:
    """(tag, image id) of the `host` image, importing it if this content was never built."""
    import docker.errors

    rootfs = host_rootfs()
    tag = host_tag(rootfs)
    try:
        return tag, client.images.get(tag).id
    except docker.errors.ImageNotFound:
        pass
    repository, _, version = tag.partition(":")
    client.api.import_image_from_data(rootfs, repository=repository, tag=version,
                                      changes=["LABEL org.kgb.image=host"])
    return tag, client.images.get(tag).id


def main() -> int:
    """`python -m kgb.sandbox.images`: build (or find) the host image and print its tag."""
    import docker

    tag, image_id = ensure_host_image(docker.from_env())
    print(f"{tag} {image_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
