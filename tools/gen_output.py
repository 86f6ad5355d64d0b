"""What every generator in tools/ shares: a C string literal of a text,
and the last step: write the generated file, or with --check compare it
with the committed one (exit 1 when it differs, so a test catches a table
edited without regenerating)."""
import sys


def c_string(s, named=False):
    """s as a C string literal: backslash and quote escaped, '?' escaped (no
    trigraphs), other control characters and every non-ASCII byte as octal
    escapes; named: newline and tab as \\n and \\t instead."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch in "\\\"":
            out.append("\\" + ch)
        elif named and ch == "\n":
            out.append("\\n")
        elif named and ch == "\t":
            out.append("\\t")
        elif ch == "?":
            out.append("\\?")  # no trigraphs
        elif o < 32 or o == 127:
            out.append("\\%03o" % o)
        elif o > 127:
            out.append("".join("\\%03o" % b for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def write_or_check(path, text, n, check, regen):
    """path: the generated file; text: its content; n: its rows (said);
    check: compare only; regen: the command that regenerates it."""
    if check:
        try:
            with open(path, encoding="utf-8") as f:
                cur = f.read()
        except OSError as e:
            print("gen_c: cannot read %s: %s" % (path, e), file=sys.stderr)
            return 1
        if cur != text:
            print("gen_c: %s is not the generator's output (run %s)" % (path, regen), file=sys.stderr)
            return 1
        print("gen_c: %s is current (%d rows)" % (path, n))
        return 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("gen_c: wrote %s (%d rows)" % (path, n))
    return 0
