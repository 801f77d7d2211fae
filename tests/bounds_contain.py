"""Reads mdpvi's --json from standard input and says whether the first property's
bounds contain a reference value (argv[1]) within a relative width (argv[2]): the
CLI tests' check of a sound answer that does not depend on how tight it comes out."""
import json
import sys


def main() -> int:
    reference, most_width = float(sys.argv[1]), float(sys.argv[2])
    answer = json.load(sys.stdin)["properties"][0]
    lower, upper = answer["lower"], answer["upper"]
    contains = lower <= reference <= upper
    narrow = upper - lower <= most_width * abs(reference)
    print(f"{answer['method']}: bounds [{lower!r}, {upper!r}] "
          f"{'contain' if contains else 'miss'} {sys.argv[1]}, "
          f"{'within' if narrow else 'wider than'} {sys.argv[2]} of it")
    return 0 if contains and narrow else 1


if __name__ == "__main__":
    sys.exit(main())
