"""The memory model and its Markdown form: items, category files, root files."""
