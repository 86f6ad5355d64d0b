# Sourced by the release scripts: the source tree, the version (the project()
# line of CMakeLists.txt) and the build root (ND_RELEASE_ROOT, default
# .release/root in the tree, git-ignored).
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(sed -n 's/^project(nccl-doctor VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
root=${ND_RELEASE_ROOT:-$src/.release/root}
