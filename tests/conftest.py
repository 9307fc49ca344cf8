"""The suite's shared modules (``helpers``, ``reference``, ``indistinguishable``) live in
tests/ itself; pytest puts this folder on ``sys.path`` when it loads this file, so the
test files in the subfolders import them by name."""
