"""The check helper the MCP client scripts share: counts passes, stops at the first failure."""
import sys

PASSED = 0


def check(condition, what):
    global PASSED
    if not condition:
        print(f"FAILED: {what}", file=sys.stderr)
        print(f"{PASSED} passed, 1 failed")
        sys.exit(1)
    PASSED += 1


def passed():
    return PASSED


def check_texture_content(content, mode):
    """A texture's `asset.info` (the demo server): its output's text copy, then its
    preview as an image and its `.meta` as an embedded text resource."""
    import base64

    kinds = [c.type for c in content]
    check(kinds == ["text", "image", "resource"], f"{mode}content blocks after the output: {kinds}")
    image = content[1]
    check(image.mime_type == "image/png", f"{mode}an image/png block")
    check(base64.b64decode(image.data).startswith(b"\x89PNG\r\n\x1a\n"), f"{mode}the image is a PNG")
    meta = content[2].resource
    check(str(meta.uri) == "unity://Assets/Textures/Logo.png.meta", f"{mode}the resource's URI: {meta.uri}")
    check(meta.mime_type == "text/yaml" and meta.text.startswith("guid: "), f"{mode}the resource's text")


def check_texture_log(logs, mode):
    """The log message the demo's `asset.info` of a texture sends before its result."""
    check(len(logs) == 1, f"{mode}one log message: {logs}")
    check(logs[0].level == "info" and "Logo.png" in str(logs[0].data), f"{mode}the log message: {logs[0]}")
