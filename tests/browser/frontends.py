"""A JupyterLab or Notebook 7 server for one test module, and helpers to drive it from Playwright.

The server runs from this venv on a free loopback port with a random token, in a folder of its
own (copies of the notebooks, never the repository's files), with its own config, settings,
runtime and workspace folders, so nothing of the developer's Jupyter set-up takes part and
nothing is written into the repository. It is stopped by its PID (SIGTERM, which makes the
server shut its kernels down properly; SIGKILL only if it hangs).

Settings written for the test: no news or update checks (there is no network), and every cell
kept in the page (``windowingMode: none``) so a test can see every output. The application
object is exposed as ``window.jupyterapp`` so tests run commands (Run All, restart) instead of
hunting through menus.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Optional

from playwright.sync_api import Page

SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def free_port() -> int:
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    return probe.getsockname()[1]


class JupyterServer:
  """``jupyter lab`` or ``jupyter notebook`` serving ``root``; ``url(path)`` opens a notebook."""

  def __init__(self, kind: str, root: Path, state: Path, env: dict[str, str]):
    assert kind in ("lab", "notebook")
    self.kind = kind
    self.root = root
    self.port = free_port()
    self.token = secrets.token_hex(16)
    settings = state / "settings"
    for name, values in SETTINGS.items():
      (settings / name).parent.mkdir(parents=True, exist_ok=True)
      (settings / name).write_text(json.dumps(values))
    self.env = {**env, "JUPYTER_CONFIG_DIR": str(state / "config"),
                "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
                "JUPYTERLAB_SETTINGS_DIR": str(settings),
                "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces")}
    self.log = state / f"{kind}.log"
    self.process: Optional[subprocess.Popen] = None
    app = "LabApp" if kind == "lab" else "JupyterNotebookApp"
    self.command = [sys.executable, "-m", "jupyter", kind, "--no-browser", "--allow-root",
                    "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
                    "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                    f"--ServerApp.root_dir={root}", f"--{app}.expose_app_in_browser=True",
                    # A lesson's kernel stops its PostgreSQL servers and removes its scratch
                    # folders at exit; on a loaded machine that takes longer than the default
                    # 5 s before the server kills it (and a killed kernel cleans nothing).
                    "--KernelManager.shutdown_wait_time=60"]

  def start(self, timeout: float = 60) -> "JupyterServer":
    with self.log.open("wb") as log:
      self.process = subprocess.Popen(self.command, env=self.env, stdout=log,
                                      stderr=subprocess.STDOUT, cwd=self.root)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
      if self.process.poll() is not None:
        raise RuntimeError(f"jupyter {self.kind} exited: {self.log.read_text()[-3000:]}")
      try:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/status?token="
                                    f"{self.token}", timeout=2):
          return self
      except OSError:
        time.sleep(0.3)
    raise RuntimeError(f"jupyter {self.kind} did not answer: {self.log.read_text()[-3000:]}")

  def stop(self, timeout: float = 30) -> None:
    """SIGTERM by PID: the server shuts its kernels down (they clean up), then exits."""
    if self.process is None or self.process.poll() is not None:
      return
    os.kill(self.process.pid, signal.SIGTERM)
    try:
      self.process.wait(timeout)
    except subprocess.TimeoutExpired:
      os.kill(self.process.pid, signal.SIGKILL)
      self.process.wait(10)

  def url(self, notebook: str) -> str:
    if self.kind == "lab":  # reset: open this notebook alone, not the tabs of earlier visits
      return f"http://127.0.0.1:{self.port}/lab/tree/{notebook}?reset&token={self.token}"
    return f"http://127.0.0.1:{self.port}/notebooks/{notebook}?token={self.token}"


# -- driving a notebook page ----------------------------------------------------------------------

def open_notebook(page: Page, server: JupyterServer, notebook: str) -> None:
  """Open ``notebook`` and wait until its kernel is ready."""
  page.goto(server.url(notebook))
  page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell", timeout=90_000)
  page.wait_for_function(
      """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                 const k = w && w.sessionContext && w.sessionContext.session
                           && w.sessionContext.session.kernel;
                 return !!k && k.status === 'idle'; }""", timeout=90_000)


def command(page: Page, name: str) -> None:
  page.evaluate("name => window.jupyterapp.commands.execute(name)", name)


def run_all(page: Page, timeout: float = 180) -> float:
  """Run every cell of the current notebook; returns the seconds it took."""
  started = time.monotonic()
  command(page, "notebook:run-all-cells")
  wait_until_idle(page, timeout)
  return time.monotonic() - started


def wait_until_idle(page: Page, timeout: float = 120) -> None:
  """No cell queued or running, and the kernel idle."""
  page.wait_for_function(
      """() => {
        const w = window.jupyterapp.shell.currentWidget;
        const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
        const prompts = Array.from(w.node.querySelectorAll('.jp-CodeCell .jp-InputPrompt'));
        return kernel && kernel.status === 'idle'
               && !prompts.some(p => p.textContent.includes('*'));
      }""", timeout=timeout * 1000, polling=250)


def restart_kernel(page: Page) -> None:
  """Restart the kernel of the current notebook, without the confirmation dialog."""
  page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.restartKernel()")
  page.wait_for_function(
      """() => { const s = window.jupyterapp.shell.currentWidget.sessionContext.session;
                 return s && s.kernel && s.kernel.status === 'idle'; }""", timeout=60_000)


def error_outputs(page: Page) -> list[str]:
  """Every error output (a traceback) of the current notebook, read from its model."""
  return page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
      .flatMap(cell => cell.model.outputs ? cell.model.outputs.toJSON() : [])
      .filter(output => output.output_type === 'error')
      .map(output => output.ename + ': ' + String(output.evalue).slice(0, 500))""")
