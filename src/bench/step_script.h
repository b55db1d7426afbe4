// The Python program of the `step` benchmark, embedded as text (run with the user's interpreter, never
// through a shell). `plumb bench step --print-script` prints it for review.
#pragma once

namespace plumb {

inline constexpr const char* kStepScript = R"PY(
# plumb step benchmark: times a small convolutional model's training step on synthetic data for
# each DataLoader setting given in argv[1] (JSON) and prints one JSON line. Runs with CPU-only
# PyTorch and on CUDA.
import json, sys, time, os

def main():
    cfg = json.loads(sys.argv[1])
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, Dataset
    torch.manual_seed(0)
    cuda = torch.cuda.is_available() and not cfg.get("cpu", False)
    dev = torch.device("cuda:0" if cuda else "cpu")
    img = int(cfg.get("image", 224 if cuda else 64))
    batch = int(cfg.get("batch", 64 if cuda else 16))
    steps = int(cfg.get("steps", 20))
    warmup = int(cfg.get("warmup", 3))

    class Synthetic(Dataset):
        # Per-item CPU work stands in for decode and augmentation, so workers matter.
        def __len__(self):
            return 1 << 30
        def __getitem__(self, i):
            g = torch.Generator().manual_seed(i)
            x = torch.rand(3, img, img, generator=g)
            if i % 2:
                x = torch.flip(x, dims=[2])
            x = (x - 0.5) / 0.25
            return x, i % 10

    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    results = []
    for s in cfg["settings"]:
        kw = dict(batch_size=batch, num_workers=int(s["num_workers"]), pin_memory=bool(s["pin_memory"]))
        if kw["num_workers"] > 0:
            kw["prefetch_factor"] = int(s["prefetch_factor"])
            kw["persistent_workers"] = False
        dl = DataLoader(Synthetic(), **kw)
        it = iter(dl)
        nw = kw["num_workers"]
        pf = kw.get("prefetch_factor", 0)
        # While the first steps are slow (worker start, CUDA and cuDNN set-up), the workers queue
        # nw * pf batches; the steps that take them from the queue are fast, and the ones after
        # wait for the workers. Warming up past that queue keeps both kinds out of the samples.
        warm = max(warmup, nw * pf + 1) if nw > 0 else warmup
        # The workers hand out batches in turn, so single steps alternate between a batch that was
        # ready and one that was not: a sample is the mean over nw consecutive steps (one batch
        # from each worker), and the timed steps are rounded up to whole samples.
        window = max(1, nw)
        timed = -(-steps // window) * window
        def one_step():
            x, y = next(it)
            x = x.to(dev, non_blocking=True)
            y = y.to(dev, non_blocking=True)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            if cuda:
                torch.cuda.synchronize()
        for _ in range(warm):
            one_step()
        times = []
        for _ in range(timed // window):
            t0 = time.perf_counter()
            for _ in range(window):
                one_step()
            times.append((time.perf_counter() - t0) / window)
        del it, dl
        results.append({"num_workers": nw, "pin_memory": kw["pin_memory"],
                        "prefetch_factor": pf, "warmup_steps": warm, "steps_per_sample": window,
                        "step_s": times})
    out = {"plumb_step": 1, "torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0) if cuda else "cpu", "image": img, "batch": batch,
           "threads": torch.get_num_threads(), "python": sys.version.split()[0], "results": results}
    sys.stdout.write(json.dumps(out) + "\n")

if __name__ == "__main__":
    try:
        main()
    except ImportError as e:
        sys.stdout.write(json.dumps({"plumb_step": 1, "error": "import failed: %s" % e}) + "\n")
        sys.exit(3)
)PY";

}  // namespace plumb
