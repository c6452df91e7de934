"""Models: takes a model's name (a ``save_pretrained`` folder, a GGUF file or a hub id), gives the
loaded causal LM and its parameter counts; also trains the offline ladders the built-in sets use.
"""
