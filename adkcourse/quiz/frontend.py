"""A few lines of browser code that make the stock ipywidgets usable from the keyboard.

Why it is needed: ipywidgets 8 renders ``RadioButtons`` as radios without a shared ``name``, so
each radio is its own Tab stop and the arrow keys do not move between them; JupyterLab and
Notebook 7 then take ArrowDown on a focused radio or checkbox as "go to the next cell" (their
shortcut selector matches any focused element in a notebook in command mode); option labels
are set as plain text, so `` `code` `` shows its backticks; and when the kernel disables the
focused Check button or rebuilds the radios, focus drops to the page body.

Why it is shipped this way: a JupyterLab extension would need a JavaScript build and a second
install step for every student; the widgets already render HTML sent by the kernel, and an
``<img>`` whose ``onerror`` runs this code is the one way to run it from there. It runs once
per card (a flag on the card), in JupyterLab, Notebook 7 and any front end that renders
ipywidgets, and it only touches its own card:

* radios get one ``name`` per card (one Tab stop, arrows move between options), and every
  radio and checkbox gets ``data-lm-suppress-shortcuts`` so the notebook leaves its keys alone;
* Check (the button, or Enter on an option or in a text box) sends the answer as the browser
  shows it, in one message (see below);
* `` `code` `` in radio labels becomes ``<code>``;
* the group, the text box and the buttons are labelled by the question text, and the feedback
  is a polite live region, for screen readers;
* when focus was in the card and the element holding it is disabled, hidden or replaced (Check,
  Try again, a kernel update), focus moves to Try again, else to the answer, else to Check.

A MutationObserver re-applies all this after each update from the kernel, because ipywidgets
rebuilds the radios when their ``disabled`` state changes.

Why Check sends the answer itself: ipywidgets keeps at most one state update per widget in
flight and holds back the next until the kernel has answered, while a button click is sent at
once. Two quick arrow presses then Check (or typing then Enter) reached the kernel as "Check"
before "option 2", and the previous option was graded. So the code stops the click, reads the
answer from the page (option positions as shown, or the typed text), and writes it, as JSON
with a fresh nonce, into a hidden text widget of the card (``SUBMIT_CLASS``); the kernel grades
what arrives there (``QuestionView._on_submitted``). Where this code does not run, the button
works as a plain ipywidgets button.
"""

from __future__ import annotations

import html

CARD_CLASS = "adkcourse-quiz-card"
PROMPT_CLASS = "adkcourse-quiz-prompt"
INPUT_CLASS = "adkcourse-quiz-input"
STATUS_CLASS = "adkcourse-quiz-status"
CHECK_CLASS = "adkcourse-quiz-check"
RETRY_CLASS = "adkcourse-quiz-retry"
SUBMIT_CLASS = "adkcourse-quiz-submit"

SCRIPT = """(function (img) {
  var card = img.closest('.%(card)s');
  if (!card || card.adkcourseQuiz) { return; }
  card.adkcourseQuiz = true;
  var uid = 'adkq-' + Math.random().toString(36).slice(2, 10);
  var keep = false;
  function usable(el) {
    return !!el && el.isConnected && !el.disabled && el.getClientRects().length > 0;
  }
  function one(selector) { return card.querySelector(selector); }
  function all(selector) { return Array.prototype.slice.call(card.querySelectorAll(selector)); }
  function button(cls) { var b = one('.' + cls); return b && (b.tagName === 'BUTTON' ? b : b.querySelector('button')); }
  function setAttr(el, name, value) { if (el && el.getAttribute(name) !== value) { el.setAttribute(name, value); } }
  function renderCode(label) {
    if (label.dataset.adkcourseRendered) { return; }
    label.dataset.adkcourseRendered = '1';
    var node = label.firstChild;
    if (!node || node.nodeType !== 3 || node.nodeValue.indexOf('`') < 0) { return; }
    var span = document.createElement('span');
    node.nodeValue.split(/(`[^`]+`)/).forEach(function (part) {
      if (part.length > 2 && part[0] === '`' && part[part.length - 1] === '`') {
        var code = document.createElement('code');
        code.textContent = part.slice(1, -1);
        span.appendChild(code);
      } else if (part) {
        span.appendChild(document.createTextNode(part));
      }
    });
    label.replaceChild(span, node);
  }
  function enhance() {
    var prompt = one('.%(prompt)s');
    if (prompt && !prompt.id) { prompt.id = uid + '-prompt'; }
    var labelled = prompt ? prompt.id : null;
    var box = one('.%(input)s .widget-radio-box');
    if (box) {
      setAttr(box, 'role', 'radiogroup');
      if (labelled) { setAttr(box, 'aria-labelledby', labelled); }
      all('.%(input)s .widget-radio-box label').forEach(renderCode);
    }
    all('.%(input)s input[type=radio]').forEach(function (radio) {
      setAttr(radio, 'name', uid);
      setAttr(radio, 'data-lm-suppress-shortcuts', 'true');
    });
    var boxes = all('.%(input)s input[type=checkbox]');
    boxes.forEach(function (item) { setAttr(item, 'data-lm-suppress-shortcuts', 'true'); });
    if (boxes.length) {
      var group = one('.%(input)s');
      setAttr(group, 'role', 'group');
      if (labelled) { setAttr(group, 'aria-labelledby', labelled); }
    }
    all('.%(input)s input[type=text]').forEach(function (text) {
      if (labelled) { setAttr(text, 'aria-labelledby', labelled); }
    });
    [button('%(check)s'), button('%(retry)s')].forEach(function (b) {
      if (b && labelled) { setAttr(b, 'aria-describedby', labelled); }
    });
    var status = one('.%(status)s');
    if (status) { setAttr(status, 'aria-live', 'polite'); setAttr(status, 'role', 'status'); }
  }
  function answerElement() {
    var checked = one('.%(input)s input[type=radio]:checked');
    if (usable(checked)) { return checked; }
    var inputs = all('.%(input)s input').filter(usable);
    return inputs.length ? inputs[0] : null;
  }
  function rescue() {
    var active = document.activeElement;
    if (!keep || (active && active !== document.body && usable(active))) { return; }
    var target = [button('%(retry)s'), answerElement(), button('%(check)s')].filter(usable)[0];
    if (target) { target.focus(); }
  }
  card.addEventListener('focusin', function () { keep = true; });
  card.addEventListener('focusout', function (event) {
    var left = event.target;
    setTimeout(function () {
      if (card.contains(document.activeElement)) { return; }
      if (usable(left)) { keep = false; return; }
      rescue();
    }, 0);
  });
  function submit() {
    var carrier = one('.%(submit)s input');
    var radios = all('.%(input)s input[type=radio]');
    var boxes = all('.%(input)s input[type=checkbox]');
    var text = one('.%(input)s input[type=text]');
    var answer = null;
    if (radios.length) {
      radios.forEach(function (radio, position) { if (radio.checked) { answer = position; } });
    } else if (boxes.length) {
      answer = [];
      boxes.forEach(function (box, position) { if (box.checked) { answer.push(position); } });
    } else if (text) {
      answer = text.value;
    }
    carrier.value = JSON.stringify({n: Date.now() + '-' + Math.random(), r: answer});
    carrier.dispatchEvent(new Event('input', {bubbles: true}));
  }
  card.addEventListener('click', function (event) {
    var check = button('%(check)s');
    if (!check || !one('.%(submit)s input') || !check.contains(event.target)) { return; }
    event.preventDefault();
    event.stopPropagation();
    if (usable(check)) { submit(); }
  }, true);
  card.addEventListener('keydown', function (event) {
    var target = event.target;
    if (event.key !== 'Enter' || event.shiftKey || event.ctrlKey || event.altKey || event.metaKey
        || !target.matches('.%(input)s input') || !one('.%(submit)s input')) { return; }
    event.preventDefault();
    event.stopPropagation();
    if (usable(button('%(check)s'))) { submit(); }
  }, true);
  new MutationObserver(function () { enhance(); rescue(); }).observe(card, {
    subtree: true, childList: true, attributes: true,
    attributeFilter: ['disabled', 'style', 'class']});
  enhance();
})(this);""" % {"card": CARD_CLASS, "prompt": PROMPT_CLASS, "input": INPUT_CLASS,
                "status": STATUS_CLASS, "check": CHECK_CLASS, "retry": RETRY_CLASS,
                "submit": SUBMIT_CLASS}


def enhancer_html() -> str:
  """An invisible image that fails to load and runs ``SCRIPT`` on its card when it does."""
  return (f'<img src="data:," alt="" aria-hidden="true" style="display:none" '
          f'onerror="{html.escape(SCRIPT, quote=True)}">')
