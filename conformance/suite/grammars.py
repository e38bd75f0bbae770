"""Custom-tool grammars the live suite sends, as real clients and OpenAI's docs write them.

Each is read by LLGuidance (OpenAI's grammar engine) and refused by Python's ``lark``
(docs/custom-tools.md): a judge reading them with ``lark`` could not send them at all. Copies of
``tests/data/grammars/`` (a test keeps them equal).
"""

from __future__ import annotations

__all__ = ["APPLY_PATCH", "MATH_EXP"]

# Codex's `apply_patch` custom tool (openai/codex, codex-rs/core/src/tools/handlers/apply_patch.lark;
# Codex declares it for catalogue models such as gpt-5.5). Python's lark: "Dynamic Earley doesn't
# allow zero-width regexps".
APPLY_PATCH = """start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
"""

# The GPT-5 cookbook's `math_exp` tool (OpenAI's function-calling guide, "Context-free grammars" ->
# "Lark CFG"; gpt-5-2025-08-07 answered it with `4 + 4`). Python's lark: "Rules defined twice".
MATH_EXP = """start: expr
expr: term (SP ADD SP term)* -> add
| term
term: factor (SP MUL SP factor)* -> mul
| factor
factor: INT
SP: " "
ADD: "+"
MUL: "*"
%import common.INT
"""
