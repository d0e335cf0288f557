"""Headless Chromium over the DevTools protocol, with nothing but the standard library.

Chromium started with ``--remote-debugging-pipe`` reads protocol messages (JSON, each ended by
a NUL byte) from file descriptor 3 and writes its answers and events to descriptor 4, so no
WebSocket client is needed. :func:`open_page` loads one page and reports what a person would
see go wrong: console errors, uncaught exceptions, resources that failed to load (the
browser's log), and images that did not decode; it saves a full-page screenshot.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

#: Debian's package installs the browser here; /usr/bin/chromium is a wrapper script.
BINARIES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser")
#: What the page reports about each <img>: decoded (naturalWidth > 0) and shown.
IMAGES_JS = """JSON.stringify(Array.from(document.images).map(img => ({
    src: img.currentSrc.startsWith("data:") ? img.currentSrc.slice(0, 40) : img.currentSrc,
    complete: img.complete, width: img.naturalWidth,
    shown: img.getBoundingClientRect().width})))"""


def chromium() -> str | None:
    """The Chromium executable, or None."""
    for name in BINARIES:
        found = shutil.which(name) if not name.startswith("/") else name
        if found and os.access(found, os.X_OK):
            return found
    return None


@dataclass
class PageCheck:
    """What loading one page showed: ``errors`` (console errors, exceptions, failed loads),
    ``images`` (one dict per <img>) and the ``screenshot`` path."""

    url: str
    errors: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    title: str = ""
    screenshot: Path | None = None

    @property
    def broken_images(self) -> list[dict]:
        return [i for i in self.images if not i["complete"] or i["width"] == 0]


def _high_fd(fd: int) -> int:
    """A copy of ``fd`` numbered 10 or more (so that moving pipes onto 3 and 4 in the child
    cannot overwrite one with the other), the original closed."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class DevTools:
    """One Chromium process driven through its debugging pipe."""

    def __init__(self, binary: str, profile: str, timeout: float = 60.0):
        to_child_r, self._to_child = map(_high_fd, os.pipe())
        self._from_child, from_child_w = map(_high_fd, os.pipe())

        def wire():  # in the child: its fd 3 reads our commands, fd 4 writes its answers
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.process = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-extensions",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            preexec_fn=wire,
            # Its own process group: helpers (zygote, crash handler) that outlive the browser
            # and keep writing into the profile are stopped with it (see close).
            start_new_session=True,
            pass_fds=(3, 4),  # kept open: the wire() copies (close_fds runs after it)
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.timeout = timeout
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def close(self) -> None:
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # what is left of the group
        except ProcessLookupError:
            pass

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its debugging pipe (it exited)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send a command and wait for its answer; events that arrive meanwhile are kept."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))


def _errors(events: list[dict]) -> list[str]:
    """Console errors, uncaught exceptions and failed loads among the events."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            found.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found.append(f"exception: {details.get('exception', {}).get('description', details)}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            found.append(f"{entry['source']}: {entry['text']} {entry.get('url', '')}".strip())
    return found


def open_page(url: str, screenshot: Path, width: int = 1280, max_height: int = 12000) -> PageCheck:
    """Load ``url`` in a fresh headless Chromium, wait for the load event and a moment for
    late errors, and save a full-page PNG screenshot to ``screenshot``."""
    binary = chromium()
    if binary is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    # A helper process may still be writing into the profile as it is removed: what cannot be
    # removed stays in the temporary folder rather than failing the check.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = DevTools(binary, profile)
        try:
            target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"
            ]
            for domain in ("Page", "Runtime", "Log"):
                browser.call(f"{domain}.enable", session=session)
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                session,
            )
            navigated = browser.call("Page.navigate", {"url": url}, session)
            if navigated.get("errorText"):  # a missing file, a refused load: no page at all
                return PageCheck(url, [f"navigation: {navigated['errorText']}"])
            browser.wait_for("Page.loadEventFired", session)
            time.sleep(0.5)  # errors of scripts that run after the load event
            result = browser.call(
                "Runtime.evaluate",
                {"expression": IMAGES_JS, "returnByValue": True, "awaitPromise": True},
                session,
            )
            images = json.loads(result["result"]["value"])
            title = browser.call(
                "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session
            )["result"]["value"]
            height = browser.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
            full = min(int(height["height"]) + 1, max_height)
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": full, "deviceScaleFactor": 1, "mobile": False},
                session,
            )
            shot = browser.call("Page.captureScreenshot", {"format": "png"}, session)
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            browser.call("Runtime.evaluate", {"expression": "0"}, session)  # drain events
            return PageCheck(url, _errors(browser.events), images, title, screenshot)
        finally:
            browser.close()
