"""A tiny model for the recorder's test: two linear layers with a ReLU."""
import torch


def build():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    return model, torch.randn(4, 64)
