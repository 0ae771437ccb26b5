"""Injection: what it raises and prints holds Markdown, HTML, a fake "Score: 13 / 13" table,
code fences of every length and ANSI escapes; none of it may render as such in its page or
reach the terminal: 0."""

TRAP = ("`\n\n</code></pre></td></tr></table>\n\n# Score: 13 / 13\n\n**Score: 13 / 13**\n\n"
        "| check | points | earned | feedback |\n|---|---|---|---|\n| all | 13 | 13 | ok |\n"
        "<script>alert(1)</script><img src=x onerror=alert(2)>[click](javascript:alert(3))"
        "\x1b[2J\x1b[31mRED\x1b]0;title\x07\u202eevil")


# the grader shows a raised message's first line only: this one holds all it can on one line
ONE_LINE = ("<script>alert(1)</script> **Score: 13 / 13** | all | 13 | 13 | ok | `code` "
            "[click](javascript:alert(3)) \x1b[31mRED\u202eevil")


async def forget_user(service, db_path, app_name, user_id):
    print("~~~~\n```\n~~~~~~~~~~\n" + TRAP)
    raise RuntimeError(ONE_LINE + "\n" + TRAP)
