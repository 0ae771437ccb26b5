"""A lesson's "I can…" checklist in a real browser (JupyterLab in Chromium): a student ticks a box
with the mouse, the count follows, and the tick is still there when the cell runs again, after a
page reload and a kernel restart, and in the French lesson (ticks are stored under the English
item, so they survive a change of language).

Only the lesson's quiz cell runs (it shows the quiz and the checklist), not the whole lesson:
``test_quiz_browser.py`` runs every lesson top to bottom already.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Locator, Page, expect

from adkcourse.quiz.checklist import fingerprint, notebook_path, read_items
from adkcourse.quiz.messages import message
from adkcourse.quiz.progress import ProgressStore
from adkcourse.scratch import reproducible_environment

from frontends import JupyterServer, command, open_notebook, restart_kernel, wait_until_idle

ROOT = Path(__file__).resolve().parents[2]
LESSON = "01_sessions_events_state"
STUDENT = "checklist-student"
TICKED = 2  # the item ticked (0-based)


class Lab:
  def __init__(self, server: JupyterServer, page: Page, home: Path, shots: Path):
    self.server, self.page, self.home, self.shots = server, page, home, shots

  def ticks(self) -> dict[str, bool]:
    return ProgressStore(self.home / "progress.db").ticks(STUDENT, LESSON)


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory, screenshots):
  folder = tmp_path_factory.mktemp("browser-checklist")
  root = folder / "root"
  for lang in ("en", "fr"):
    target = root / notebook_path(LESSON, lang).relative_to(ROOT)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook_path(LESSON, lang), target)
  env = {**os.environ, **reproducible_environment(folder / "run"), "ADKCOURSE_USER": STUDENT}
  env.pop("ADKCOURSE_KEEP_SCRATCH", None)
  server = JupyterServer("lab", root, folder, env).start()
  page = browser.new_page()
  page.set_default_timeout(30_000)
  page.on("dialog", lambda dialog: dialog.accept())  # "leave the page?" on reload
  try:
    yield Lab(server, page, folder / "run" / "home", screenshots)
  finally:
    page.close()
    server.stop()


def _quiz_cell_id() -> str:
  cells = nbformat.read(notebook_path(LESSON), as_version=4).cells
  (cell,) = [c for c in cells if c.cell_type == "code" and "show_checklist(" in c.source]
  return cell.id


def _run_checklist_cell(page: Page) -> Locator:
  """Run the lesson's quiz cell alone; the checklist it shows (the newest one)."""
  index = page.evaluate("""id => {
      const notebook = window.jupyterapp.shell.currentWidget.content;
      const index = notebook.widgets.findIndex(cell => cell.model.id === id);
      notebook.activeCellIndex = index;
      return index; }""", _quiz_cell_id())
  assert index >= 0
  command(page, "notebook:run-cell")
  wait_until_idle(page)
  checklist = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea "
                           ".widget-vbox.adkcourse-checklist")
  expect(checklist).to_have_count(1)
  checklist.scroll_into_view_if_needed()
  return checklist


def _boxes(checklist: Locator) -> Locator:
  return checklist.locator(".adkcourse-checklist-item input[type=checkbox]")


def _count(checklist: Locator) -> Locator:
  return checklist.locator(".adkcourse-checklist-count")


def _wait_for_tick(lab: Lab, key: str) -> None:
  deadline = time.monotonic() + 20
  while lab.ticks().get(key) is not True and time.monotonic() < deadline:
    time.sleep(0.25)
  assert lab.ticks() == {key: True}, lab.ticks()


def test_a_tick_is_saved_and_shown_again(lab):
  page = lab.page
  items = read_items(notebook_path(LESSON))
  total = len(items)
  open_notebook(page, lab.server, f"notebooks/{LESSON}.ipynb")
  checklist = _run_checklist_cell(page)
  expect(_boxes(checklist)).to_have_count(total)
  for i in range(total):
    expect(_boxes(checklist).nth(i)).not_to_be_checked()
  expect(_count(checklist)).to_have_text(f"I can… · 0 of {total}")
  labels = checklist.locator(".adkcourse-checklist-item")
  expect(labels.nth(4).locator("code").first).to_have_text("output_key")  # code, not backticks
  assert "`" not in labels.nth(4).inner_text()
  # the box's text is its accessible name
  expect(checklist.get_by_role("checkbox", name=items[0].split("`")[0].strip())).to_have_count(1)

  _boxes(checklist).nth(TICKED).click()
  expect(_boxes(checklist).nth(TICKED)).to_be_checked()
  expect(_count(checklist)).to_have_text(f"I can… · 1 of {total}")
  _wait_for_tick(lab, fingerprint(items[TICKED]))
  checklist.screenshot(path=str(lab.shots / "checklist-ticked.png"))

  # The cell run again in the same kernel: a new widget, the tick read back.
  checklist = _run_checklist_cell(page)
  expect(_boxes(checklist).nth(TICKED)).to_be_checked()
  expect(_count(checklist)).to_have_text(f"I can… · 1 of {total}")

  # The page reloaded and the kernel restarted: nothing in memory any more.
  command(page, "docmanager:save")
  wait_until_idle(page)
  page.reload()
  page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell", timeout=90_000)
  open_notebook(page, lab.server, f"notebooks/{LESSON}.ipynb")
  restart_kernel(page)
  checklist = _run_checklist_cell(page)
  expect(_boxes(checklist).nth(TICKED)).to_be_checked()
  assert [_boxes(checklist).nth(i).is_checked() for i in range(total)] == \
      [i == TICKED for i in range(total)]
  expect(_count(checklist)).to_have_text(f"I can… · 1 of {total}")

  # A second tick counts, and unticking it is saved too.
  _boxes(checklist).nth(0).click()
  expect(_count(checklist)).to_have_text(f"I can… · 2 of {total}")
  _boxes(checklist).nth(0).click()
  expect(_count(checklist)).to_have_text(f"I can… · 1 of {total}")
  wait_until_idle(page)
  deadline = time.monotonic() + 20
  while len(lab.ticks()) < 2 and time.monotonic() < deadline:
    time.sleep(0.25)
  assert lab.ticks() == {fingerprint(items[TICKED]): True, fingerprint(items[0]): False}
  page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")


def test_the_tick_shows_in_the_french_lesson(lab):
  """A tick made in the English lesson (stored here as the test above stores it in the browser,
  so that this test stands alone) shows in the French one."""
  page = lab.page
  items = read_items(notebook_path(LESSON, "fr"))
  english = read_items(notebook_path(LESSON))
  store = ProgressStore(lab.home / "progress.db")
  store.record_tick(STUDENT, LESSON, fingerprint(english[TICKED]), True)
  store.record_tick(STUDENT, LESSON, fingerprint(english[0]), False)
  open_notebook(page, lab.server, f"notebooks/fr/{LESSON}.ipynb")
  checklist = _run_checklist_cell(page)
  expect(_count(checklist)).to_have_text(
      f"{message('checklist_title', 'fr')} · {message('checklist_count', 'fr', ticked=1, total=len(items))}")
  expect(checklist.locator(".adkcourse-checklist-item").nth(TICKED)).to_contain_text(
      " ".join(items[TICKED].split()[:3]))
  expect(_boxes(checklist).nth(TICKED)).to_be_checked()
  expect(_boxes(checklist).nth(0)).not_to_be_checked()
  checklist.screenshot(path=str(lab.shots / "checklist-fr.png"))
  page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
