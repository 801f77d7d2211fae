#!/usr/bin/env python3
"""Bad input through the command line, a case a row: each must end with its exit status
and its message (with the position where there is one), never a crash, a hang or a
silent answer. A few rows are inputs that once failed and must now work.

    python3 tests/bad_inputs.py MDPVI
"""
import os
import re
import subprocess
import sys
import tempfile

MDP = "mdp\nmodule m\n  x : [0..2] init 0;\n  [] x<2 -> (x'=x+1);\n  [] x=2 -> true;\nendmodule\n"
CTMC = "ctmc\nmodule m\n  x : [0..1] init 0;\n  [] x=0 -> 2 : (x'=1);\n  [] x=1 -> 3 : (x'=0);\nendmodule\n"
GOOD_TRA = "2 2 2\n0 0 1 1\n1 0 1 1\n"
GOOD_LAB = '0="init" 1="goal"\n0: 0\n1: 1\n'


# One automaton, one edge of action go, no sync vector (so the edge never fires).
JANI = ('{"jani-version": 1, "name": "m", "type": "mdp", "variables": [{"name": "x", "type": {"kind": "bounded", '
        '"base": "int", "lower-bound": 0, "upper-bound": 1}, "initial-value": 0}], "automata": [{"name": "a", '
        '"locations": [{"name": "l"}], "initial-locations": ["l"], "edges": [{"location": "l", "guard": {"exp": true}, '
        '"destinations": [{"location": "l"}]}]}], "system": {"elements": [{"automaton": "a"}], "syncs": []}}\n')


def model(body):
    return "mdp\nmodule m\n  x : [0..2] init 0;\n" + body + "\nendmodule\n"


# name, files {name: text}, arguments (FILE names a file of this case), exit status, message pattern
CASES = [
    # The PRISM language
    ("syntax_error", {"m.nm": "mdp\nmodule m\n  x : [0..2] init 0\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:4:1: expected ';', found 'endmodule'"),
    ("unknown_identifier", {"m.nm": model("  [] y<2 -> (x'=x+1);")}, ["m.nm"], 2, r"m\.nm:4:6: unknown identifier 'y'"),
    ("type_error", {"m.nm": model("  [] x+true>1 -> (x'=x+1);")}, ["m.nm"], 2, r"m\.nm:4:7: type error"),
    ("update_out_of_range", {"m.nm": model("  [] true -> (x'=x+1);")}, ["m.nm"], 2, r"m\.nm:4:15: update sets 'x' to 3, outside its range \[0\.\.2\]"),
    ("init_out_of_range", {"m.nm": "mdp\nmodule m\n  x : [0..2] init 5;\n  [] true -> true;\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:3:3: initial value 5 of 'x' is outside its range \[0\.\.2\]"),
    ("empty_range", {"m.nm": "mdp\nmodule m\n  x : [3..2];\n  [] true -> true;\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:3:3: empty range \[3\.\.2\] for 'x'"),
    ("probabilities_do_not_sum_to_one", {"m.nm": model("  [] x<2 -> 0.5:(x'=x+1) + 0.6:(x'=x);\n  [] x=2 -> true;")}, ["m.nm"], 2, r"m\.nm:4:3: probabilities of the command sum to 1\.1"),
    ("negative_probability", {"m.nm": model("  [] x<2 -> -0.5:(x'=x+1) + 1.5:(x'=x);\n  [] x=2 -> true;")}, ["m.nm"], 2, r"m\.nm:4:3: probability -0\.5"),
    ("undefined_constant", {"m.nm": "mdp\nconst int N;\nmodule m\n  x : [0..N];\n  [] true -> true;\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:2:11: constant 'N' has no value: give it with --const N="),
    ("constant_past_32_bits", {"m.nm": "mdp\nconst int c = pow(2,40);\n" + MDP[4:]}, ["m.nm"], 2, r"m\.nm:2:11: constant 'c' is 1099511627776, outside 32-bit integers"),
    ("constant_overflows", {"m.nm": "mdp\nconst int c = 2147483647+1;\n" + MDP[4:]}, ["m.nm"], 2, r"m\.nm:2:11: constant 'c' is 2147483648, outside 32-bit integers"),
    ("constant_infinite", {"m.nm": "mdp\nconst int c = floor(1/0);\n" + MDP[4:]}, ["m.nm"], 2, r"m\.nm:2:11: constant 'c' is inf, outside 32-bit integers"),
    ("constant_nan", {"m.nm": "mdp\nconst double c = 0/0;\n" + MDP[4:]}, ["m.nm"], 2, r"m\.nm:2:14: constant 'c' is not a number \(NaN\)"),
    ("update_to_nan", {"m.nm": model("  [] x=0 -> (x'=floor(0/0));\n  [] x>0 -> true;")}, ["m.nm"], 2, r"m\.nm:4:14: update sets 'x' to NaN, outside its range"),
    ("reward_nan", {"m.nm": MDP + "rewards\n  true : 0/0;\nendrewards\n"}, ["m.nm", "--prop", "Rmax=? [ F x=2 ]"], 2, r"m\.nm:8:3: the reward is NaN in state \(x=0\)"),
    # CTMCs (issue 43): a negative rate, a time bound that is negative or NaN, and a
    # property only MDPs have.
    ("negative_rate", {"m.sm": CTMC.replace("2 : (x'=1)", "-2 : (x'=1)")}, ["m.sm"], 2, r"m\.sm:4:3: rate -2 is not a finite number >= 0 in state \(x=0\)"),
    ("negative_time_bound", {"m.sm": CTMC}, ["m.sm", "--prop", "P=? [ F<=-1 x=1 ]"], 1, r"--prop 1:1:10: a time bound must be a finite number >= 0, found -1"),
    ("nan_time_bound", {"m.sm": CTMC}, ["m.sm", "--prop", "P=? [ F<=0/0 x=1 ]"], 1, r"--prop 1:1:11: a time bound must be a finite number >= 0, found NaN"),
    ("ctmc_flag_on_a_prism_model", {"m.sm": CTMC}, ["m.sm", "--ctmc"], 2, r"--ctmc is for PRISM's explicit files \(\.tra\); a PRISM-language model says ctmc itself"),
    ("ctmc_tra_with_a_zero_rate", {"c.tra": "2 2\n0 1 0\n1 0 3\n", "c.lab": GOOD_LAB}, ["c.tra", "--ctmc"], 2, r"c\.tra:2:5: rate 0 is not a finite number > 0"),
    ("mdp_only_property_on_a_ctmc", {"m.sm": CTMC}, ["m.sm", "--prop", "multi(Pmax=? [ F x=1 ], Pmax=? [ F x=0 ])"], 1, r"--prop 1:1:1: not supported yet: multi-objective queries"),
    ("negative_reward", {"m.nm": MDP + "rewards\n  true : -1;\nendrewards\n"}, ["m.nm", "--prop", "Rmax=? [ F x=2 ]"], 1, r"negative"),
    ("two_modules_update_one_variable", {"m.nm": "mdp\nglobal g : [0..1];\nmodule a\n  [s] true -> (g'=1);\nendmodule\nmodule b\n  [s] true -> (g'=0);\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:\d+:\d+: 'g' is updated by two modules synchronising on \[s\]"),
    ("formula_refers_to_itself", {"m.nm": "mdp\nformula f = f+1;\nmodule m\n  x : [0..2];\n  [] x<f -> true;\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:\d+:\d+: formula 'f' refers to itself"),
    ("variable_declared_twice", {"m.nm": "mdp\nmodule m\n  x : [0..2];\n  x : [0..2];\n  [] true -> true;\nendmodule\n"}, ["m.nm"], 2, r"m\.nm:4:3: 'x' is declared twice"),
    ("deep_parentheses", {"m.nm": "mdp\nconst int c = " + "(" * 2000 + "1" + ")" * 2000 + ";\n" + MDP[4:]}, ["m.nm"], 2, r"m\.nm:2:215: nested deeper than 200 levels"),
    ("deep_negations", {"m.nm": model("  [] " + "!" * 100000 + "true -> true;")}, ["m.nm"], 2, r"m\.nm:4:206: nested deeper than 200 levels"),
    ("deep_conditionals", {"m.nm": "mdp\nconst int c = " + "true ? 1 : " * 3000 + "0;\n" + MDP[4:]}, ["m.nm"], 2, r"m\.nm:2:\d+: nested deeper than 200 levels"),
    ("empty_model_file", {"m.nm": ""}, ["m.nm"], 2, r"m\.nm:1:1: the file holds no model"),
    # Once refused, now read: a sum of 70 variables, min of 78 arguments (PRISM takes both).
    ("long_sum_works", {"m.nm": "mdp\nmodule m\n" + "".join(f"  v{i} : [0..1];\n" for i in range(70)) + "  [] " + "+".join(f"v{i}" for i in range(70)) + "<70 -> true;\nendmodule\n"}, ["m.nm"], 0, r"States: +1 "),
    ("min_of_many_works", {"m.nm": "mdp\nconst int c = min(" + ",".join(str(i + 3) for i in range(78)) + ");\n" + MDP[4:]}, ["m.nm", "--prop", "P>=1 [ F x=c-1 ]"], 0, r"Result: true"),
    # Linear in the input: a 1 MB sum of constants, a 0.4 MB sum of a variable (the copies
    # made per level were quadratic; the recursion per operator needs mdpvi's big stack).
    ("megabyte_sum_of_constants_works", {"m.nm": "mdp\nconst int c = " + "+".join(["1"] * 500000) + ";\n" + MDP[4:]}, ["m.nm", "--prop", "P>=1 [ F c>0 ]"], 0, r"Result: true"),
    ("long_sum_of_a_variable_works", {"m.nm": model("  [] " + "+".join(["x"] * 100000) + ">=0 -> true;")}, ["m.nm"], 0, r"States: +1 "),
    # Properties
    ("property_syntax_error", {"m.nm": MDP}, ["m.nm", "--prop", "Pmax=? [ F x=2"], 2, r"--prop 1:1:15: expected"),
    ("property_unknown_label", {"m.nm": MDP}, ["m.nm", "--prop", 'Pmax=? [ F "goal" ]'], 1, r'--prop 1:1:12: unknown label "goal"'),
    ("property_bound_nan", {"m.nm": MDP}, ["m.nm", "--prop", "P>=0/0 [ F x=2 ]"], 1, r"--prop 1:1:5: the bound is not a number \(NaN\)"),
    ("property_bound_above_one", {"m.nm": MDP}, ["m.nm", "--prop", "P>=2 [ F x=2 ]"], 1, r"--prop 1:1:4: a probability bound must lie in \[0, 1\]"),
    ("property_unsupported", {"m.nm": MDP}, ["m.nm", "--prop", "multi(Pmax=? [ F<=5000 x=2 ], Pmin=? [ F x=1 ])"], 1, r"--prop 1:1:7: not supported yet: a step bound above 1000"),
    ("long_run_of_an_mdp_without_min_or_max", {"m.nm": MDP}, ["m.nm", "--prop", "S=? [ x=2 ]"], 1, r"--prop 1:1:1: S=\? needs min or max for an MDP \(Smin=\? or Smax=\?\)"),
    ("property_unknown_reward", {"m.nm": MDP}, ["m.nm", "--prop", 'R{"cost"}max=? [ F x=2 ]'], 1, r'the model has no reward structure "cost"'),
    ("property_deep_nesting", {"m.nm": MDP}, ["m.nm", "--prop", "(" * 1000 + "true" + ")" * 1000], 2, r"nested deeper than 200 levels"),
    ("reward_until_with_a_bound", {"m.nm": MDP}, ["m.nm", "--prop", 'R=? [ x<2 U<=3 x=2 ]'], 1,
     r"--prop 1:1:12: not supported yet: a bounded F or U in a reward"),
    ("reward_of_a_bounded_f", {"m.nm": MDP}, ["m.nm", "--prop", 'Rmax=? [ F<=3 x=2 ]'], 1,
     r"--prop 1:1:11: not supported yet: a bounded F or U in a reward"),
    # PRISM's explicit files
    ("tra_declares_huge_state_count", {"e.tra": "2000000000 1 1\n0 0 0 1\n", "e.lab": GOOD_LAB}, ["e.tra"], 2, r"e\.tra:1:1: the header declares 2000000000 states, but the file has 2 lines"),
    ("tra_probability_above_one", {"e.tra": "2 2 2\n0 0 1 1.5\n1 0 1 1\n", "e.lab": GOOD_LAB}, ["e.tra"], 2, r"e\.tra:2:7: probability 1\.5 outside \(0,1\]"),
    ("tra_without_lab", {"e.tra": GOOD_TRA}, ["e.tra"], 2, r"e\.lab: cannot open file"),
    ("lab_without_init", {"e.tra": GOOD_TRA, "e.lab": '0="goal"\n1: 0\n'}, ["e.tra"], 2, r'e\.lab: no initial state: no state carries the label "init"'),
    ("sta_with_too_few_states", {"e.tra": GOOD_TRA, "e.lab": GOOD_LAB, "e.sta": "(x)\n0:(0)\n"}, ["e.tra"], 2, r"e\.sta: expected 2 states, found 1"),
    ("srew_header_disagrees", {"e.tra": GOOD_TRA, "e.lab": GOOD_LAB, "e.srew": "3 0\n"}, ["e.tra"], 2, r"e\.srew:1:1: header declares 3 states, the model has 2"),
    ("short_file_read_whole", {"e.tra": GOOD_TRA, "e.lab": GOOD_LAB, "e.srew": "2 1\n0 2\n"}, ["e.tra", "--prop", 'Rmax=? [ F "goal" ]'], 0, r"Result: 2 "),
    # DRN and UMB
    ("drn_markov_automaton", {"d.drn": "@type: MA\n"}, ["d.drn"], 2, r"d\.drn:1:8: expected MDP, DTMC or CTMC, found 'MA'"),
    ("drn_declares_huge_state_count", {"d.drn": "@type: MDP\n@nr_states\n2000000000\n@nr_choices\n1\n@model\n"}, ["d.drn"], 2, r"d\.drn:6: @nr_states 2000000000 and @nr_choices 1 cannot fit in a file of 6 lines"),
    ("umb_not_an_archive", {"u.umb": "@type: MDP\n"}, ["u.umb"], 2, r"u\.umb: cannot read it as a \(compressed\) tar archive"),
    ("umb_truncated", {}, ["{here}/fuzz/corpus/umb/resend.umb:half"], 2, r"u\.umb: .*(broken archive|ends inside|truncated)"),
    # JANI (issue 44): JSON syntax with its line and column, a name nothing declares, and
    # what PRISM's language cannot say (a sync vector that renames its action).
    ("jani_json_syntax", {"m.jani": '{\n  "type": "mdp"\n  "automata": []\n}\n'}, ["m.jani"], 2,
     r"m\.jani:3:12: expected JSON \(a JANI model\): syntax error while parsing object"),
    ("jani_unknown_identifier", {"m.jani": JANI.replace('"guard": {"exp": true}', '"guard": {"exp": "y"}')}, ["m.jani"], 2,
     r"m\.jani: unknown identifier 'y'"),
    ("jani_renaming_sync", {"m.jani": JANI.replace('"syncs": []', '"syncs": [{"synchronise": ["go"], "result": "went"}]')},
     ["m.jani"], 2, r"m\.jani: system\.syncs\[0\]\.result: not supported yet: a sync vector that renames its action"),
    ("jani_missing_member", {"m.jani": JANI.replace('"initial-locations": ["l"], ', '')}, ["m.jani"], 2,
     r"m\.jani: automata\[a\]: expected a member \"initial-locations\""),
    # Paths and options
    ("missing_model", {}, ["FILE/none.nm"], 2, r"none\.nm: cannot open file"),
    ("directory_as_model", {}, ["FILE"], 2, r"is a directory, not a file"),
    ("unwritable_export", {"m.nm": MDP}, ["m.nm", "--export-model", "/nonexistent/dir/m.drn"], 2, r"/nonexistent/dir/m\.drn: cannot write the model"),
    ("unknown_export_format", {"m.nm": MDP}, ["m.nm", "--export-model", "m.json"], 2, r"m\.json: the model's format comes from the extension"),
    ("unknown_read_format", {"m.nm": MDP}, ["m.nm", "--format", "json"], 2, r"--format: json not in"),
    ("epsilon_nan", {"m.nm": MDP}, ["m.nm", "--epsilon", "nan"], 2, r"--epsilon: nan must be a finite number above 0"),
    ("epsilon_negative", {"m.nm": MDP}, ["m.nm", "--epsilon", "-1"], 2, r"--epsilon: -1 must be a finite number above 0"),
    ("max_iters_zero", {"m.nm": MDP}, ["m.nm", "--max-iters", "0"], 2, r"--max-iters: 0 must be a whole number above 0\n"),
    ("gpus_zero", {"m.nm": MDP}, ["m.nm", "--gpus", "0"], 2, r"--gpus: expected all, a count above 0 or device indices such as 0,1, found '0'"),
    ("gpus_listed_twice", {"m.nm": MDP}, ["m.nm", "--gpus", "1,1"], 2, r"--gpus 1,1: device 1 is listed twice"),
    ("gpus_not_an_index", {"m.nm": MDP}, ["m.nm", "--gpus", "0,first"], 2, r"--gpus 0,first: expected a device index, found 'first'"),
    ("gpus_listed_past_the_machine", {"m.nm": MDP}, ["m.nm", "--gpus", "0,99"], 2, r"--gpus 0,99: [0-9]+ of the 2 devices listed (is a usable CUDA device|are usable CUDA devices) here"),
    ("gpus_past_the_machine", {"m.nm": MDP}, ["m.nm", "--gpus", "99"], 2, r"--gpus 99: this machine has [0-9]+ usable CUDA devices"),
    ("cpu_partitions_zero", {"m.nm": MDP}, ["m.nm", "--cpu-partitions", "0"], 2, r"--cpu-partitions: 0 must be a whole number above 0\n"),
    ("constant_given_twice", {"m.nm": MDP}, ["m.nm", "--const", "N=2,N=3"], 2, r"--const: N is given twice"),
    ("unknown_constant", {"m.nm": MDP}, ["m.nm", "--const", "N=2"], 2, r"--const N: no constant of that name"),
    ("state_limit", {"m.nm": MDP}, ["m.nm", "--state-limit", "1"], 1, r"state limit reached: 2 states found, 1 of them explored in 1 waves \(--state-limit 1\)"),
    ("memory_limit", {"m.nm": MDP}, ["m.nm", "--memory-limit", "1K"], 1, r"memory limit reached: the process takes \d+ MiB after 2 states found, 1 of them explored in 1 waves \(--memory-limit 1024 bytes\)"),
    ("memory_limit_unit", {"m.nm": MDP}, ["m.nm", "--memory-limit", "12x"], 2, r"--memory-limit: x unit not recognized"),
    ("lanes_without_group_size", {"m.nm": MDP}, ["m.nm", "--gpu-lanes-over", "rows"], 2, r"--gpu-lanes-over requires --gpu-group-size"),
    ("bicgstab_on_an_mdp", {"m.nm": model("  [] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);\n  [] x=0 -> (x'=2);\n  [] x>0 -> true;")},
     ["m.nm", "--prop", "Pmax=? [ F x=1 ]", "--method", "bicgstab"], 1, r"--method bicgstab solves DTMCs \(one choice per state\)"),
]


def run_case(mdpvi, name, files, args, status, pattern):
    with tempfile.TemporaryDirectory() as d:
        for file, text in files.items():
            with open(os.path.join(d, file), "w") as f:
                f.write(text)
        argv = []
        for a in args:
            a = a.replace("{here}", os.path.dirname(os.path.abspath(__file__)))
            if a.endswith(":half"):  # the first half of a real file, as u.umb
                with open(a[:-5], "rb") as f:
                    data = f.read()
                a = os.path.join(d, "u.umb")
                with open(a, "wb") as f:
                    f.write(data[: len(data) // 2])
            elif a == "FILE" or a.startswith("FILE/"):
                a = d + a[4:]
            argv.append(a)
        try:
            run = subprocess.run([mdpvi, "check", *argv], cwd=d, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "timed out"
        output = run.stdout + run.stderr
        if run.returncode != status:
            return f"exit {run.returncode}, expected {status}\n{output[-600:]}"
        if not re.search(pattern, output):
            return f"no /{pattern}/ in\n{output[-600:]}"
        return None


def main():
    mdpvi = os.path.abspath(sys.argv[1])
    failed = 0
    for case in CASES:
        problem = run_case(mdpvi, *case)
        if problem:
            failed += 1
            print(f"FAILED {case[0]}: {problem}")
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
