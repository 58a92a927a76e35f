"""``python -m finchunk.cli``: the same as the ``finchunk`` command."""

from finchunk.cli import main

if __name__ == "__main__":
    main()
