"""An async def that returns the right set-up once awaited: its caller does not await it."""
from solutions.fit_the_budget import fit_the_budget as _right


async def fit_the_budget(budget_tokens, summarizer):
  return _right(budget_tokens, summarizer)
