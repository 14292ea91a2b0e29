"""Golden values for rewardkit's length rewards from the peers' own code (test/fixtures/length/peer-golden.json).

Runs TRL's _CosineScaledReward and _RepetitionPenalty and open-r1's get_repetition_penalty_reward and len_reward,
loaded from checkouts of huggingface/trl @ f2cd5771 and huggingface/open-r1 @ 1416fa0c (only those definitions are
executed: the packages' imports need torch / math_verify, so correctness is stubbed to the listed booleans).
Nothing of the peers' code is copied into rewardkit.

  git -C trl show f2cd5771:trl/rewards/accuracy_rewards.py > trl_acc.py
  git -C trl show f2cd5771:trl/rewards/other_rewards.py > trl_other.py
  git -C open-r1 show 1416fa0c:src/open_r1/rewards.py > or1.py
  python3 scripts/length-golden.py > golden.json   # in the folder holding the three files
"""
import ast, math, json
def load(path, names, extra):
    src = open(path).read(); tree = ast.parse(src)
    ns = dict(extra)
    ns.setdefault('math', math)
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in names:
            exec(compile(ast.Module([node], []), path, 'exec'), ns)
    return ns
out = {}
# TRL cosine: accuracy_reward stubbed to the given correctness list
corr = {}
ns = load('trl_acc.py', {'_CosineScaledReward'}, {'accuracy_reward': lambda completions, solution: corr['v']})
C = ns['_CosineScaledReward']
cases = []
for args in [(100, -1.0, -0.5, 0.5, 1.0), (1000, -0.8, -0.3, 0.4, 1.2), (4096, -1.0, -0.5, 0.5, 1.0)]:
    f = C(*args)
    Ls = [0, 1, 25, 50, 75, 99, 100, 101, 150, 333, 1000, 2048, 4096, 10000]
    for correct in (True, False):
        corr['v'] = [correct] * len(Ls)
        r = f([None]*len(Ls), [None]*len(Ls), [[1]*L for L in Ls])
        cases.append({"args": args, "correct": correct, "lengths": Ls, "rewards": r})
out['cosine'] = cases
ns = load('trl_other.py', {'_RepetitionPenalty'}, {})
R = ns['_RepetitionPenalty']
rep = []
seqs = [[1,2,3,4],[5,5,5,5,5],[1,2,1,2,1,2,1,2],[1],[],[1,2,3,1,2,3,1,2,4,9,9,9,9],list(range(50))+list(range(50)),[7,7]]
for n, p in [(2,-1.0),(3,-1.0),(3,-0.5),(1,-2.0),(4,-1.0)]:
    rep.append({"n": n, "p": p, "seqs": seqs, "rewards": R(n, p)(seqs)})
out['repetition'] = rep
# open-r1 word-based repetition penalty and len_reward (Kimi); parse/verify stubbed
import typing
ns = load('or1.py', {'get_repetition_penalty_reward', 'len_reward'}, {'Dict': typing.Dict, 'Optional': typing.Optional})
texts = ["The cat sat. The cat sat. The cat sat.", "one two three four five", "Go go GO go go", "", "a b", "we will we will rock you we will we will rock you"]
w = []
for n, p in [(2,-1.0),(3,-1.0)]:
    f = ns['get_repetition_penalty_reward'](n, p)
    w.append({"n": n, "p": p, "texts": texts, "rewards": f([[{"content": t}] for t in texts])})
out['repetitionWords'] = w
verdicts = {}
ns['parse'] = lambda s, **k: [s]
ns['verify'] = lambda a, g: verdicts[a[0]]
ns['LatexExtractionConfig'] = lambda **k: None
ns['NormalizationConfig'] = lambda **k: None
groups = [
  (["x"*100, "y"*200, "z"*300], [True, True, False]),
  (["x"*100, "y"*200, "z"*300], [False, True, True]),
  (["a"*50, "b"*50], [True, False]),
  (["a"*10, "b"*40, "c"*70, "d"*100], [False, False, True, True]),
  (["a"*7, "b"*7, "c"*8], [True, True, True]),
]
kimi = []
for contents, correct in groups:
    verdicts.clear(); verdicts.update({c: v for c, v in zip(contents, correct)})
    r = ns['len_reward']([[{"content": c}] for c in contents], ["gold"]*len(contents))
    kimi.append({"lengths": [len(c) for c in contents], "correct": correct, "rewards": r})
out['kimi'] = kimi
print(json.dumps(out))
