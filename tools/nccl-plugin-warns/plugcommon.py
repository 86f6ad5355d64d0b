"""What the scripts of tools/nccl-plugin-warns share: the columns of
warns.tsv and the loader of tools/nccl-warns' modules (whose file names are
the same as this directory's)."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))

COLUMNS = ["plugin", "literal", "file", "first_version", "last_version", "kind", "key", "versions"]


def nccl_warns(name):
    """tools/nccl-warns/<name>.py, loaded under its own module name."""
    spec = importlib.util.spec_from_file_location("nccl_warns_" + name,
                                                  os.path.join(HERE, "..", "nccl-warns", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
