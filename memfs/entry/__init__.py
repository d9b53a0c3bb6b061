"""The entry files an agent lives on: memory.md (a profile per person), index.md (a map),
skill.md (the operating manual) and one page per person under people/.

All of them are views of the category files: same store in, same bytes out.
"""
