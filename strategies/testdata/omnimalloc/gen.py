"""Writes goldens.txt: the plans OmniMalloc's planners return on small
problems, for TestOmniMallocGoldens.

simulated-annealing, hill-climb and tabu-search come from OmniMalloc's
own C++ (fpedd/omnimalloc 2e9cf4ede72f, src/cpp) built with driver.cpp:

  git -C omnimalloc archive 2e9cf4ede72f src/cpp | tar -x -C /tmp/omni
  cd /tmp/omni/src/cpp && cp driver.cpp main.cpp && g++ -std=c++20 -O2 -I. main.cpp \
    allocators/simulated_annealing.cpp allocators/tabu_search.cpp allocators/local_search.cpp \
    allocators/first_fit.cpp analysis/*.cpp primitives/allocation.cpp -o /tmp/omni/drv

genetic and random-search come from the loops of genetic.py and
random.py at that revision run here over DEAP's own operators (DEAP/deap
8a96fd3a7502; its numpy and moocore imports stubbed, unused by them) and
CPython's random module, with a Python first-fit placer that follows
first_fit.cpp's FirstFitPlacer. greedy's orders follow greedy.py.

  OMNI_DRV=/tmp/omni/drv PYTHONPATH=/path/to/deap python3 gen.py > goldens.txt
"""

import os
import random
import subprocess

from deap import algorithms, base, creator, tools

DRV = os.environ["OMNI_DRV"]


def problems():
    out = {}
    out["chain5"] = [(16, 0, 1, -1), (8, 1, 2, -1), (64, 2, 3, -1), (32, 3, 4, -1), (8, 4, 5, -1)]
    out["one"] = [(40, 0, 3, -1)]
    out["two"] = [(40, 0, 3, -1), (24, 2, 5, -1)]
    g = random.Random(7)
    for n, sizes, name in ((12, None, "rand12"), (30, None, "rand30"), (60, None, "rand60"),
                           (40, (8, 16, 32), "ties40"), (80, None, "rand80")):
        bufs = []
        for _ in range(n):
            size = g.choice(sizes) if sizes else g.randint(1, 1000)
            first = g.randrange(0, n // 2)
            bufs.append((size, first, first + g.randrange(0, 8), -1))
        out[name] = bufs
    # Pins: two buffers with fixed offsets that do not collide.
    bufs = list(out["rand30"])
    bufs[3] = (bufs[3][0], bufs[3][1], bufs[3][2], 0)
    bufs[17] = (bufs[17][0], bufs[17][1], bufs[17][2], 2048)
    out["pinned30"] = bufs
    return out


def conflicts(bufs):
    n = len(bufs)
    return [[j for j in range(n) if j != i and bufs[i][1] <= bufs[j][2] and bufs[j][1] <= bufs[i][2]] for i in range(n)]


class Placer:
    def __init__(self, bufs):
        self.bufs = bufs
        self.nbrs = conflicts(bufs)

    def offsets(self, order):
        off = [b[3] if b[3] >= 0 else None for b in self.bufs]
        for i in order:
            if off[i] is not None:
                continue
            spans = sorted((off[j], off[j] + self.bufs[j][0]) for j in self.nbrs[i] if off[j] is not None)
            best = 0
            for lo, hi in spans:
                if lo - best >= self.bufs[i][0]:
                    break
                best = max(best, hi)
            off[i] = best
        return off

    def peak(self, order):
        off = self.offsets(order)
        return max((o + b[0] for o, b in zip(off, self.bufs)), default=0)


def orders(bufs):
    n = len(bufs)
    idx = list(range(n))
    dur = [b[2] + 1 - b[1] for b in bufs]
    deg = [len(c) for c in conflicts(bufs)]
    return {
        "input": idx,
        "size": sorted(idx, key=lambda i: bufs[i][0], reverse=True),
        "duration": sorted(idx, key=lambda i: dur[i], reverse=True),
        "area": sorted(idx, key=lambda i: bufs[i][0] * dur[i], reverse=True),
        "conflict": sorted(idx, key=lambda i: (deg[i], bufs[i][0]), reverse=True),
        "conflict-size": sorted(idx, key=lambda i: (deg[i] * bufs[i][0], bufs[i][0]), reverse=True),
        "start": sorted(idx, key=lambda i: (bufs[i][1], -bufs[i][0], str(i))),
    }


def genetic(bufs, seed, pop, gens, cx=0.7, mut=0.2, tourn=3):
    n = len(bufs)
    placer = Placer(bufs)
    if n < 2:
        return placer.offsets(list(range(n)))
    random.seed(seed)
    if not hasattr(creator, "FitMin"):
        creator.create("FitMin", base.Fitness, weights=(-1.0,))
        creator.create("Ind", list, fitness=creator.FitMin)
    tb = base.Toolbox()
    tb.register("indices", random.sample, range(n), n)
    tb.register("individual", tools.initIterate, creator.Ind, tb.indices)
    tb.register("evaluate", lambda ind: (float(placer.peak(ind)),))
    tb.register("mate", tools.cxOrdered)
    tb.register("mutate", tools.mutShuffleIndexes, indpb=0.05)
    tb.register("select", tools.selTournament, tournsize=tourn)
    o = orders(bufs)
    seeds = [o[k] for k in ("size", "duration", "area", "conflict", "conflict-size", "start")][:pop]
    population = [creator.Ind(p) for p in seeds]
    population += [tb.individual() for _ in range(pop - len(population))]
    hof = tools.HallOfFame(maxsize=1)

    def evaluate_invalid(inds):
        for ind in inds:
            if not ind.fitness.valid:
                ind.fitness.values = tb.evaluate(ind)
        return inds

    hof.update(evaluate_invalid(population))
    for _ in range(gens):
        offspring = tb.select(population, len(population))
        offspring = algorithms.varAnd(offspring, tb, cx, mut)
        hof.update(evaluate_invalid(offspring))
        population[:] = offspring
    return placer.offsets(list(hof[0]))


def random_search(bufs, seed, trials):
    rng = random.Random(seed)
    placer = Placer(bufs)
    order = list(range(len(bufs)))
    rng.shuffle(order)
    best, best_peak = list(order), placer.peak(order)
    for _ in range(trials - 1):
        rng.shuffle(order)
        peak = placer.peak(order)
        if peak < best_peak:
            best, best_peak = list(order), peak
    return placer.offsets(best)


def greedy(bufs, order):
    placer = Placer(bufs)
    if order != "all":
        return placer.offsets(orders(bufs)[order])
    best = None
    for k in ("input", "size", "duration", "area", "conflict", "conflict-size", "start"):
        off = placer.offsets(orders(bufs)[k])
        peak = max((o + b[0] for o, b in zip(off, bufs)), default=0)
        if best is None or peak < best[0]:
            best = (peak, off)
    return best[1]


def cxx(mode, bufs, *args):
    text = "".join(f"{s} {f} {l} {p}\n" for s, f, l, p in bufs)
    out = subprocess.run([DRV, mode, *map(str, args)], input=text, capture_output=True, text=True, check=True)
    return [int(x) for x in out.stdout.split()]


def main():
    probs = problems()
    for name, bufs in probs.items():
        print(f"problem {name}")
        for b in bufs:
            print(*b)
        print("end")
    for name, bufs in probs.items():
        for seed, iters in ((42, 3000), (7, 200)):
            print(f"plan {name} simulated-annealing?seed={seed}&max_iterations={iters}&timeout=0")
            print(*cxx("sa", bufs, seed, iters))
            print(f"plan {name} hill-climb?seed={seed}&max_iterations={iters}&timeout=0")
            print(*cxx("hc", bufs, seed, iters))
        print(f"plan {name} simulated-annealing?seed=1&max_iterations=500&initial_temperature=20&cooling_rate=0.99&timeout=0")
        print(*cxx("sa", bufs, 1, 500, 20, 0.99))
        for seed, iters, hood, tenure in ((42, 500, 20, 15), (3, 100, 5, 4)):
            print(f"plan {name} tabu-search?seed={seed}&max_iterations={iters}&neighborhood_size={hood}&tabu_tenure={tenure}&timeout=0")
            print(*cxx("tabu", bufs, seed, iters, hood, tenure))
        for seed, pop, gens in ((42, 100, 50), (5, 10, 20), (9, 4, 30)):
            print(f"plan {name} genetic?seed={seed}&population_size={pop}&max_generations={gens}&timeout=0")
            print(*genetic(bufs, seed, pop, gens))
        for seed, trials in ((42, 100), (11, 7)):
            print(f"plan {name} random-search?seed={seed}&num_trials={trials}")
            print(*random_search(bufs, seed, trials))
        for order in ("input", "size", "duration", "area", "conflict", "conflict-size", "start", "all"):
            print(f"plan {name} greedy?order={order}")
            print(*greedy(bufs, order))


main()
