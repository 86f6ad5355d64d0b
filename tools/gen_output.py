"""The last step every generator in tools/ shares: write the generated
file, or with --check compare it with the committed one (exit 1 when it
differs, so a test catches a table edited without regenerating)."""
import sys


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
