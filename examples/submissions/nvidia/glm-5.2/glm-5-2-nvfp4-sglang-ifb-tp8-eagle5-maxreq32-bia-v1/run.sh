# SGLang 0.5.17 (lmsysorg/sglang:v0.5.17-cu130, digest 16aba8925507e631e1dc1e23d95d026533602591775f6a8db68b74ee99746155)
# serving GLM-5.2 (NVFP4) on B300 x8 — TP8, EAGLE speculative decode (topk 1, 6 draft tokens, 5 steps), max-running-requests 32.
# Single node, 8 GPUs, aggregated in-flight batching. NVIDIA baseline config
# glm-5-2-nvfp4-sglang-ifb-tp8-eagle5-maxreq32-bia-v1 (bench_sflow).
python3 -m sglang.launch_server \
--config ifb_config.yaml \
--model-path nvidia/GLM-5.2-NVFP4 \
--served-model-name GLM-5.2 \
--host 0.0.0.0 --port 20800 \
--enable-cache-report
