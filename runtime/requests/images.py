"""Image requests: the bytes the UI shows as thumbnails, one image per reply so each frame stays small.

``message_image {id}``: an image a message carries (ids from the session view).
``workspace_image {path}``: an image file in the workspace (a run_python plot in its card); only
image types, at most ``MAX_WORKSPACE_IMAGE_BYTES``.
"""

import base64
from typing import TYPE_CHECKING, TypedDict

from runtime.requests.method import Method, Table
from runtime.requests.params import RequestError, integer, text
from runtime.tools.base import ToolError
from runtime.tools.paths import resolve

if TYPE_CHECKING:
    from runtime.requests.ports import Ports

MAX_WORKSPACE_IMAGE_BYTES = 6 * 1024 * 1024  # its base64 stays far under the frame limit
MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}


class ImageId(TypedDict):
    id: int


class MessageImage(TypedDict):
    id: int
    media_type: str
    name: str
    data: str  # base64


class ImagePath(TypedDict):
    path: str  # workspace-relative


class WorkspaceImage(TypedDict):
    path: str
    media_type: str
    data: str  # base64


async def message_image(ports: "Ports", params: ImageId) -> MessageImage:
    store = await ports.state.store()
    image = store.get_image(integer(params, "id", low=1))
    data = base64.b64encode(image.data or b"").decode("ascii")
    return {"id": image.id, "media_type": image.media_type, "name": image.name, "data": data}


async def workspace_image(ports: "Ports", params: ImagePath) -> WorkspaceImage:
    path = text(params, "path")
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    media_type = MEDIA_TYPES.get(suffix)
    if media_type is None:
        raise RequestError("bad_params", f"{path} is not an image file (SVG, PNG, JPEG, GIF or WebP)")
    await ports.on_demand.path(path)
    try:
        target = resolve(ports.workspace, path)
        if target.stat().st_size > MAX_WORKSPACE_IMAGE_BYTES:
            raise RequestError("too_large", f"{path} is over {MAX_WORKSPACE_IMAGE_BYTES // (1024 * 1024)} MiB")
        data = target.read_bytes()
    except (ToolError, OSError):
        raise RequestError("not_found", f"{path} is no longer in the workspace") from None
    return {"path": path, "media_type": media_type, "data": base64.b64encode(data).decode("ascii")}


METHODS: Table = {
    "message_image": Method(ImageId, MessageImage, message_image),
    "workspace_image": Method(ImagePath, WorkspaceImage, workspace_image),
}
