"""Reference models, datasets and the training loop that ``gpudoctor verify`` runs; imports torch."""
