"""The engine-release extractors (src/cfglint/knowledge/build/engines/): each on a small source
tree written here in the shape of its release line (explicit add_argument, dataclass-generated
flags with Literal choices and bool negations, SGLang's Arg metadata, Dynamo's argument groups,
click options and pydantic models), with the exact record expected; the pins and the fetch
step; when the extracted release trees are in the build cache (CFGLINT_BUILD_CACHE, else
~/.cache/cfglint-build), facts of real releases that published launches depend on, and that a
re-run gives the same record; and that the shipped data (rules/releases/) says of a release what
its package says (a deep run, as CI's, downloads one small release of each engine for it) and,
with every pinned release cached, is the compiler's output byte for byte."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from cfglint.knowledge import versions
from cfglint.knowledge.build.engines import command, dynamo, fetch, merge, pins, sglang, trtllm, vllm
from cfglint.knowledge.build.engines.pep517_stub import prepare_metadata_for_build_wheel
from cfglint.knowledge.releases import attr
from support import DEEP, ROOT

# the synthetic release trees (a few lines of each release line's mechanism)
VLLM = {
    "vllm/__init__.py": "",
    "PKG-INFO": "Metadata-Version: 2.1\nName: vllm\nVersion: 9.9.9\n",
    "vllm/utils.py": '''
import argparse


class FlexibleArgumentParser(argparse.ArgumentParser):
    def parse_args(self, args=None, namespace=None):
        args = [a.replace("_", "-") for a in args]
        return super().parse_args(args, namespace)
''',
    "vllm/config.py": '''
from dataclasses import dataclass
from typing import Literal, Optional


@dataclass
class ModelConfig:
    dtype: Literal["auto", "half", "float16"] = "auto"
    """Data type of the weights."""
    enforce_eager: bool = False
    """Always use eager mode."""
    max_model_len: Optional[int] = None
    """Model context length. Deprecated: will be removed in v99."""

    def __post_init__(self):
        if self.max_model_len is not None and self.max_model_len < 1:
            raise ValueError("max_model_len must be positive")
''',
    "vllm/engine/__init__.py": "",
    "vllm/engine/arg_utils.py": '''
import argparse
from dataclasses import dataclass

from vllm.config import ModelConfig


def get_kwargs(cls):
    raise NotImplementedError


@dataclass
class EngineArgs:
    model: str = "facebook/opt-125m"

    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(ModelConfig)
        group = parser.add_argument_group(title="ModelConfig")
        group.add_argument("--dtype", **model_kwargs["dtype"])
        group.add_argument("--enforce-eager", **model_kwargs["enforce_eager"])
        group.add_argument("--max-model-len", **model_kwargs["max_model_len"])
        parser.add_argument("--swap-space", type=float, default=4, help="CPU swap space (GiB).")
        return parser


@dataclass
class AsyncEngineArgs(EngineArgs):
    @staticmethod
    def add_cli_args(parser):
        parser = EngineArgs.add_cli_args(parser)
        parser.add_argument("--disable-log-requests", action="store_true",
                            help="Disable logging requests. This flag is deprecated.")
        return parser
''',
    "vllm/entrypoints/__init__.py": "",
    "vllm/entrypoints/cli/__init__.py": "",
    "vllm/entrypoints/cli/serve.py": '''
from vllm.entrypoints.openai.cli_args import make_arg_parser


class ServeSubcommand:
    def __init__(self):
        self.name = "serve"

    def subparser_init(self, subparsers):
        serve_parser = subparsers.add_parser(self.name, help="Start the server.")
        serve_parser.add_argument("model_tag", nargs="?")
        return make_arg_parser(serve_parser)
''',
    "vllm/entrypoints/openai/__init__.py": "",
    "vllm/entrypoints/openai/cli_args.py": '''
import os

from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.entrypoints.openai.tool_parsers import ToolParserManager


def make_arg_parser(parser):
    parser.add_argument("--host", type=str, default=None)
    parser.add_argument("--port", type=int, default=int(os.environ.get("VLLM_PORT", "8000")))
    parser.add_argument("--tool-call-parser", type=str, choices=list(ToolParserManager.tool_parsers.keys()))
    parser = AsyncEngineArgs.add_cli_args(parser)
    return parser
''',
    "vllm/entrypoints/openai/tool_parsers/__init__.py": '''
class ToolParserManager:
    tool_parsers = {}

    @classmethod
    def register_module(cls, name):
        def deco(c):
            cls.tool_parsers[name] = c
            return c
        return deco
''',
    "vllm/entrypoints/openai/tool_parsers/hermes.py": '''
from vllm.entrypoints.openai.tool_parsers import ToolParserManager


@ToolParserManager.register_module("hermes")
class HermesToolParser:
    pass


@ToolParserManager.register_module(["llama3_json", "llama4_json"])
class Llama3JsonToolParser:
    pass
''',
    "vllm/envs.py": '''
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    VLLM_PORT: int = 8000
    VLLM_ALL2ALL_BACKEND: str = "naive"

environment_variables = {
    "VLLM_PORT": lambda: int(os.getenv("VLLM_PORT", "8000")),
    "VLLM_ALL2ALL_BACKEND": lambda: os.getenv("VLLM_ALL2ALL_BACKEND", "naive"),
    "VLLM_USE_V1": lambda: bool(int(os.getenv("VLLM_USE_V1", "1"))),
}
''',
}

SGLANG = {
    "sglang/__init__.py": "",
    "sglang/srt/__init__.py": "",
    "sglang/srt/environ.py": '''
import os


class EnvField:
    def __init__(self, default):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def get(self):
        value = os.getenv(self.name)
        if value is None:
            return self.default
        return value.lower() in ("1", "true")


class EnvBool(EnvField):
    pass


class EnvInt(EnvField):
    pass


class Envs:
    SGLANG_ENABLE_FA3 = EnvBool(False)
    SGLANG_MAX_RUNS = EnvInt(8)


envs = Envs()
''',
    "sglang/srt/arg_groups/__init__.py": "",
    "sglang/srt/arg_groups/arg_utils.py": '''
from dataclasses import dataclass
from typing import Annotated, Any

A = Annotated


@dataclass
class Arg:
    help: str = ""
    choices: Any = None
    aliases: Any = None
    action: Any = None


def add_cli_args_from_dataclass(parser, cls, *, fields=None):
    raise NotImplementedError
''',
    "sglang/srt/server_args.py": '''
import argparse
import dataclasses
import os
from typing import List, Literal, Optional

from sglang.srt.arg_groups.arg_utils import A, Arg, add_cli_args_from_dataclass
from sglang.srt.environ import envs

ATTENTION_BACKEND_CHOICES = ["triton", "torch_native"]
if envs.SGLANG_ENABLE_FA3.get():
    ATTENTION_BACKEND_CHOICES.append("fa3")


@dataclasses.dataclass
class ServerArgs:
    model_path: A[str, Arg(help="Model path.", aliases=["--model"])]
    tp_size: A[int, Arg(help="Tensor parallel size.", aliases=["--tensor-parallel-size"])] = 1
    kv_cache_dtype: A[Literal["auto", "fp8_e4m3"], "KV cache data type."] = "auto"
    enable_metrics: A[bool, "Enable metrics."] = False
    cuda_graph_bs: A[Optional[List[int]], "Batch sizes to capture."] = None
    attention_backend: Optional[str] = None
    enable_dp_attention: bool = False
    dp_size: int = 1
    port: int = 30000

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        add_cli_args_from_dataclass(parser, ServerArgs)
        parser.add_argument("--attention-backend", type=str, choices=ATTENTION_BACKEND_CHOICES,
                            default=ServerArgs.attention_backend)
        parser.add_argument("--enable-dp-attention", action="store_true",
                            help="Deprecated: use --dp-size instead.")
        parser.add_argument("--dp-size", type=int, default=ServerArgs.dp_size)
        parser.add_argument("--port", type=int, default=int(os.getenv("SGLANG_PORT", ServerArgs.port)))

    def __post_init__(self):
        if self.enable_dp_attention:
            assert self.tp_size % self.dp_size == 0
        if self.enable_metrics and self.enable_dp_attention:
            raise ValueError("cannot be used together")
''',
    "sglang/srt/parser/__init__.py": "",
    "sglang/srt/parser/reasoning_parser.py": '''
class ReasoningParser:
    DetectorMap = {"deepseek-r1": object, "qwen3": object}
''',
    "sglang/srt/function_call/__init__.py": "",
    "sglang/srt/function_call/function_call_parser.py": '''
class FunctionCallParser:
    ToolCallParserEnum = {"llama3": object, "qwen25": object}
''',
}

DYNAMO = {
    "dynamo/__init__.py": "",
    "dynamo/common/__init__.py": "",
    "dynamo/common/configuration/__init__.py": "",
    "dynamo/common/configuration/utils.py": '''
import os


def env_or_default(env_var, default):
    value = os.environ.get(env_var)
    if value is None:
        return default
    return type(default)(value) if default is not None else value


def add_argument(parser, *, flag_name, env_var, default, help, **kwargs):
    parser.add_argument(flag_name, default=env_or_default(env_var, default),
                        help=f"{help}\\nenv var: {env_var} | default: {default}", **kwargs)


def add_negatable_bool_argument(parser, *, flag_name, env_var, default, help):
    import argparse
    parser.add_argument(flag_name, action=argparse.BooleanOptionalAction,
                        default=env_or_default(env_var, default), help=help)
''',
    "dynamo/common/configuration/groups/__init__.py": "",
    "dynamo/common/configuration/groups/runtime_args.py": '''
from dynamo._core import get_tool_parser_names
from dynamo.common.configuration.utils import add_argument, add_negatable_bool_argument


class ArgGroup:
    def add_arguments(self, parser):
        raise NotImplementedError


class DynamoRuntimeArgGroup(ArgGroup):
    def add_arguments(self, parser):
        g = parser.add_argument_group("Dynamo runtime")
        add_argument(g, flag_name="--namespace", env_var="DYN_NAMESPACE", default="dynamo",
                     help="Dynamo namespace.")
        add_argument(g, flag_name="--dyn-tool-call-parser", env_var="DYN_TOOL_CALL_PARSER", default=None,
                     help="Tool call parser.", choices=get_tool_parser_names())
        add_negatable_bool_argument(g, flag_name="--enable-metrics", env_var="DYN_ENABLE_METRICS", default=False,
                                    help="Publish metrics.")
''',
    "dynamo/sglang/__init__.py": "",
    "dynamo/sglang/args.py": '''
import argparse
import sys

from sglang.srt.server_args import ServerArgs

from dynamo.common.configuration.groups.runtime_args import DynamoRuntimeArgGroup


def _validate_parser_flags(args, name):
    if getattr(args, "dyn_" + name.replace("-", "_")) and getattr(args, name.replace("-", "_")):
        raise ValueError(f"--dyn-{name} and --{name} cannot be used together")


def parse_args(argv):
    parser = argparse.ArgumentParser(description="SGLang worker")
    DynamoRuntimeArgGroup().add_arguments(parser)
    parser.add_argument("--served-model-name", type=str, default=None, help="Deprecated alias of --model-name.")
    ServerArgs.add_cli_args(parser)
    args = parser.parse_args(argv)
    _validate_parser_flags(args, "tool-call-parser")
    return args
''',
    "dynamo/sglang/main.py": '''
import os
import sys

from dynamo.sglang.args import parse_args


def main():
    if os.environ.get("DYN_SGLANG_DEBUG"):
        print("debug")
    parse_args(sys.argv[1:])
''',
    "dynamo/sglang/__main__.py": '''
from dynamo.sglang.main import main

if __name__ == "__main__":
    main()
''',
}

TRTLLM = {
    "tensorrt_llm/__init__.py": "",
    "tensorrt_llm/version.py": '__version__ = "9.9.9"\n',
    "tensorrt_llm/logger.py": '''
severity_map = {"internal_error": 0, "error": 1, "warning": 2, "info": 3}
''',
    "tensorrt_llm/commands/__init__.py": "",
    "tensorrt_llm/commands/serve.py": '''
import json
import os

import click

from tensorrt_llm.llmapi.llm_args import BuildConfig
from tensorrt_llm.logger import severity_map


class ChoiceWithAlias(click.Choice):
    def __init__(self, choices, aliases):
        super().__init__(choices)
        self.aliases = aliases


class DefaultGroup(click.Group):
    def resolve_command(self, ctx, args):
        return "serve", serve, args


@click.command("serve")
@click.argument("model", type=str)
@click.option("--backend", type=ChoiceWithAlias(["pytorch", "tensorrt"], {"trt": "tensorrt"}), default="pytorch")
@click.option("--log_level", type=click.Choice(list(severity_map.keys())), default="info")
@click.option("--tp_size", "--tensor_parallel_size", type=int, default=1)
@click.option("--max_batch_size", type=int, default=BuildConfig.model_fields["max_batch_size"].default)
@click.option("--verbose/--quiet", default=False)
@click.option("--media_io_kwargs", type=str, default=None)
@click.option("--old_flag", type=str, default=None, hidden=True)
@click.option("--a", is_flag=True)
@click.option("--b", is_flag=True)
def serve(model, backend, log_level, tp_size, max_batch_size, verbose, media_io_kwargs, old_flag, a, b):
    if old_flag is not None:
        raise click.BadParameter("--old_flag was removed; use --config")
    if a and b:
        raise click.UsageError("cannot set both --a and --b")
    kwargs = json.loads(media_io_kwargs)
    workers = int(os.environ.get("TRTLLM_SERVE_WORKERS", "4"))
    quiet = os.getenv("TLLM_QUIET", "0") == "1"


@click.command("disaggregated")
@click.option("-c", "--config_file", type=str, default=None)
def disaggregated(config_file):
    pass


main = DefaultGroup(commands={"serve": serve, "disaggregated": disaggregated})
''',
    "tensorrt_llm/llmapi/__init__.py": "",
    "tensorrt_llm/llmapi/llm_args.py": '''
from enum import Enum
from typing import Literal, Optional

from pydantic import AliasChoices, BaseModel, ConfigDict, Field


class StrictBaseModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CapacitySchedulerPolicy(str, Enum):
    MAX_UTILIZATION = "MAX_UTILIZATION"
    GUARANTEED_NO_EVICT = "GUARANTEED_NO_EVICT"


class MoeConfig(StrictBaseModel):
    backend: Literal["AUTO", "CUTLASS", "WIDEEP", "TRTLLM"] = Field(default="AUTO", status="beta")
    max_num_tokens: Optional[int] = None


class SchedulerConfig(StrictBaseModel):
    capacity_scheduler_policy: CapacitySchedulerPolicy = CapacitySchedulerPolicy.GUARANTEED_NO_EVICT


class BuildConfig(StrictBaseModel):
    max_batch_size: int = Field(default=2048)


class BaseLlmArgs(StrictBaseModel):
    model: str = Field(description="The model.")
    tensor_parallel_size: int = 1
    scheduler_config: SchedulerConfig = Field(default_factory=SchedulerConfig)
    speculative_model: Optional[str] = Field(default=None, validation_alias=AliasChoices("speculative_model",
                                                                                        "speculative_model_dir"))


class TorchLlmArgs(BaseLlmArgs):
    moe_config: MoeConfig = Field(default_factory=MoeConfig, status="beta")
    attn_backend: str = Field(default="TRTLLM", status="deprecated")
''',
}


# what the extractors must give for them
EXPECTED_VLLM = {'engine': 'vllm',
 'version': '9.9.9',
 'launchers': {'serve': {'source': ['vllm/engine/arg_utils.py', 'vllm/entrypoints/cli/serve.py',
                                    'vllm/entrypoints/openai/cli_args.py'],
                         'positional': ['model_tag'],
                         'parser_source': 'vllm/utils.py',
                         'underscore_equivalent': True,
                         'config_file_flag': False,
                         'json_dotted_keys': False,
                         'O_shorthand_target': None,
                         'flags': {'--disable-log-requests': {'aliases': [],
                                                              'negation': [],
                                                              'type': 'bool',
                                                              'choices': None,
                                                              'default': False,
                                                              'nargs': None,
                                                              'deprecated': 'help text marks it deprecated: This '
                                                                            'flag is deprecated.',
                                                              'env': [],
                                                              'hidden': False,
                                                              'source': 'vllm/engine/arg_utils.py:31'},
                                   '--dtype': {'aliases': [],
                                               'negation': [],
                                               'type': 'str',
                                               'choices': ['auto', 'float16', 'half'],
                                               'default': 'auto',
                                               'nargs': None,
                                               'deprecated': None,
                                               'env': [],
                                               'hidden': False,
                                               'source': 'vllm/engine/arg_utils.py:19',
                                               'field': 'ModelConfig.dtype',
                                               'field_source': 'vllm/config.py:7'},
                                   '--enforce-eager': {'aliases': [],
                                                       'negation': ['--no-enforce-eager'],
                                                       'type': 'bool',
                                                       'choices': None,
                                                       'default': False,
                                                       'nargs': None,
                                                       'deprecated': None,
                                                       'env': [],
                                                       'hidden': False,
                                                       'source': 'vllm/engine/arg_utils.py:20',
                                                       'field': 'ModelConfig.enforce_eager',
                                                       'field_source': 'vllm/config.py:9'},
                                   '--host': {'aliases': [],
                                              'negation': [],
                                              'type': 'str',
                                              'choices': None,
                                              'default': None,
                                              'nargs': None,
                                              'deprecated': None,
                                              'env': [],
                                              'hidden': False,
                                              'source': 'vllm/entrypoints/openai/cli_args.py:8'},
                                   '--max-model-len': {'aliases': [],
                                                       'negation': [],
                                                       'type': 'int',
                                                       'choices': None,
                                                       'default': None,
                                                       'nargs': None,
                                                       'deprecated': 'field docstring marks it deprecated: '
                                                                     'Deprecated: will be removed in v99.',
                                                       'env': [],
                                                       'hidden': False,
                                                       'source': 'vllm/engine/arg_utils.py:21',
                                                       'nullable': True,
                                                       'field': 'ModelConfig.max_model_len',
                                                       'field_source': 'vllm/config.py:11'},
                                   '--port': {'aliases': [],
                                              'negation': [],
                                              'type': 'int',
                                              'choices': None,
                                              'default': 8000,
                                              'nargs': None,
                                              'deprecated': None,
                                              'env': ['VLLM_PORT'],
                                              'hidden': False,
                                              'source': 'vllm/entrypoints/openai/cli_args.py:9'},
                                   '--swap-space': {'aliases': [],
                                                    'negation': [],
                                                    'type': 'float',
                                                    'choices': None,
                                                    'default': 4,
                                                    'nargs': None,
                                                    'deprecated': None,
                                                    'env': [],
                                                    'hidden': False,
                                                    'source': 'vllm/engine/arg_utils.py:22'},
                                   '--tool-call-parser': {'aliases': [],
                                                          'negation': [],
                                                          'type': 'str',
                                                          'choices': 'dynamic',
                                                          'default': None,
                                                          'nargs': None,
                                                          'deprecated': None,
                                                          'env': [],
                                                          'hidden': False,
                                                          'source': 'vllm/entrypoints/openai/cli_args.py:10',
                                                          'registry_values': ['hermes', 'llama3_json',
                                                                              'llama4_json']}}}},
 'removed': {},
 'env': {'VLLM_ALL2ALL_BACKEND': {'type': 'str',
                                  'default': 'naive',
                                  'source': 'vllm/envs.py:10',
                                  'declared_type': 'str',
                                  'declared_default': 'naive'},
         'VLLM_PORT': {'type': 'int',
                       'default': '8000',
                       'source': 'vllm/envs.py:9',
                       'declared_type': 'int',
                       'declared_default': 8000},
         'VLLM_USE_V1': {'type': 'bool', 'default': '1', 'source': 'vllm/envs.py:11'}},
 'parsers': {'reasoning': [],
             'tool': ['hermes', 'llama3_json', 'llama4_json'],
             'tool_source': ['vllm/entrypoints/openai/tool_parsers/hermes.py']},
 'exclusive': [],
 'checks': [{'where': 'ModelConfig.__post_init__',
             'source': 'vllm/config.py:15',
             'condition': 'max_model_len is not None and max_model_len < 1',
             'raises': 'ValueError',
             'fields': ['max_model_len'],
             'flags': ['--max-model-len'],
             'inputs': []}]}


EXPECTED_SGLANG = {'engine': 'sglang',
 'version': '9.9.9',
 'launchers': {'launch_server': {'source': ['sglang/srt/server_args.py'],
                                 'source_sha256': '<computed>',
                                 'parser': 'argparse',
                                 'allow_abbrev': True,
                                 'mechanism': 'dataclass fields with A[T, Arg(...)] metadata -> '
                                              'add_cli_args_from_dataclass; explicit parser.add_argument calls',
                                 'flags': {'--model-path': {'aliases': ['--model'],
                                                            'negation': [],
                                                            'type': 'str',
                                                            'choices': None,
                                                            'default': None,
                                                            'nargs': None,
                                                            'deprecated': None,
                                                            'env': [],
                                                            'hidden': False,
                                                            'dest': 'model_path',
                                                            'origin': 'dataclass:ServerArgs',
                                                            'required': True,
                                                            'source': 'sglang/srt/server_args.py:16'},
                                           '--tp-size': {'aliases': ['--tensor-parallel-size'],
                                                         'negation': [],
                                                         'type': 'int',
                                                         'choices': None,
                                                         'default': 1,
                                                         'nargs': None,
                                                         'deprecated': None,
                                                         'env': [],
                                                         'hidden': False,
                                                         'dest': 'tp_size',
                                                         'origin': 'dataclass:ServerArgs',
                                                         'source': 'sglang/srt/server_args.py:17'},
                                           '--kv-cache-dtype': {'aliases': [],
                                                                'negation': [],
                                                                'type': 'str',
                                                                'choices': ['auto', 'fp8_e4m3'],
                                                                'default': 'auto',
                                                                'nargs': None,
                                                                'deprecated': None,
                                                                'env': [],
                                                                'hidden': False,
                                                                'dest': 'kv_cache_dtype',
                                                                'origin': 'dataclass:ServerArgs',
                                                                'source': 'sglang/srt/server_args.py:18'},
                                           '--enable-metrics': {'aliases': [],
                                                                'negation': [],
                                                                'type': 'bool',
                                                                'choices': None,
                                                                'default': False,
                                                                'nargs': None,
                                                                'deprecated': None,
                                                                'env': [],
                                                                'hidden': False,
                                                                'action': 'store_true',
                                                                'dest': 'enable_metrics',
                                                                'origin': 'dataclass:ServerArgs',
                                                                'source': 'sglang/srt/server_args.py:19'},
                                           '--cuda-graph-bs': {'aliases': [],
                                                               'negation': [],
                                                               'type': 'list',
                                                               'choices': None,
                                                               'default': None,
                                                               'nargs': '+',
                                                               'deprecated': None,
                                                               'env': [],
                                                               'hidden': False,
                                                               'dest': 'cuda_graph_bs',
                                                               'item_type': 'int',
                                                               'origin': 'dataclass:ServerArgs',
                                                               'source': 'sglang/srt/server_args.py:20'},
                                           '--attention-backend': {'aliases': [],
                                                                   'negation': [],
                                                                   'type': 'str',
                                                                   'choices': ['triton', 'torch_native', 'fa3'],
                                                                   'default': None,
                                                                   'nargs': None,
                                                                   'deprecated': None,
                                                                   'env': [],
                                                                   'hidden': False,
                                                                   'choices_conditional': [{'values': ['fa3'],
                                                                                            'source': 'sglang/srt/server_args.py:11'}],
                                                                   'dest': 'attention_backend',
                                                                   'origin': 'sglang/srt/server_args.py:ServerArgs.add_cli_args',
                                                                   'source': 'sglang/srt/server_args.py:29'},
                                           '--enable-dp-attention': {'aliases': [],
                                                                     'negation': [],
                                                                     'type': 'bool',
                                                                     'choices': None,
                                                                     'default': False,
                                                                     'nargs': None,
                                                                     'deprecated': 'Deprecated: use --dp-size '
                                                                                   'instead.',
                                                                     'env': [],
                                                                     'hidden': False,
                                                                     'action': 'store_true',
                                                                     'dest': 'enable_dp_attention',
                                                                     'origin': 'sglang/srt/server_args.py:ServerArgs.add_cli_args',
                                                                     'replacement': '--dp-size',
                                                                     'source': 'sglang/srt/server_args.py:31'},
                                           '--dp-size': {'aliases': [],
                                                         'negation': [],
                                                         'type': 'int',
                                                         'choices': None,
                                                         'default': 1,
                                                         'nargs': None,
                                                         'deprecated': None,
                                                         'env': [],
                                                         'hidden': False,
                                                         'dest': 'dp_size',
                                                         'origin': 'sglang/srt/server_args.py:ServerArgs.add_cli_args',
                                                         'source': 'sglang/srt/server_args.py:33'},
                                           '--port': {'aliases': [],
                                                      'negation': [],
                                                      'type': 'int',
                                                      'choices': None,
                                                      'default': 30000,
                                                      'nargs': None,
                                                      'deprecated': None,
                                                      'env': ['SGLANG_PORT'],
                                                      'hidden': False,
                                                      'default_expr': "int(os.getenv('SGLANG_PORT', "
                                                                      'ServerArgs.port))',
                                                      'dest': 'port',
                                                      'origin': 'sglang/srt/server_args.py:ServerArgs.add_cli_args',
                                                      'source': 'sglang/srt/server_args.py:34'}}}},
 'removed': {},
 'env': {'SGLANG_ENABLE_FA3': {'type': 'bool',
                               'default': False,
                               'source': 'sglang/srt/environ.py:27',
                               'kind': 'EnvBool'},
         'SGLANG_MAX_RUNS': {'type': 'int', 'default': 8, 'source': 'sglang/srt/environ.py:28', 'kind': 'EnvInt'},
         'SGLANG_PORT': {'type': 'str',
                         'default': None,
                         'source': 'sglang/srt/server_args.py:34',
                         'kind': 'direct read'}},
 'parsers': {'reasoning': ['deepseek-r1', 'qwen3'],
             'tool': ['llama3', 'qwen25'],
             'sources': {'reasoning': 'sglang/srt/parser/reasoning_parser.py:2',
                         'tool': 'sglang/srt/function_call/function_call_parser.py:2'}},
 'exclusive': [{'flags': ['--enable-metrics', '--enable-dp-attention'], 'source': 'sglang/srt/server_args.py:40'}],
 'checks': [{'source': 'sglang/srt/server_args.py:38',
             'function': '__post_init__',
             'kind': 'assert',
             'when': '--enable-dp-attention',
             'requires': '--tp-size % --dp-size == 0',
             'flags': ['--enable-dp-attention', '--tp-size', '--dp-size']},
            {'source': 'sglang/srt/server_args.py:40',
             'function': '__post_init__',
             'kind': 'raise',
             'refuses': '--enable-metrics and --enable-dp-attention',
             'flags': ['--enable-metrics', '--enable-dp-attention']}]}


EXPECTED_DYNAMO = {'engine': 'dynamo',
 'version': '9.9.9',
 'launchers': {'sglang': {'source': ['dynamo/common/configuration/groups/runtime_args.py',
                                     'dynamo/common/configuration/utils.py', 'dynamo/sglang/args.py',
                                     'dynamo/sglang/main.py'],
                          'flags': {'--dyn-tool-call-parser': {'aliases': [],
                                                               'negation': [],
                                                               'type': 'str',
                                                               'choices': ['hermes', 'qwen3_coder'],
                                                               'default': None,
                                                               'nargs': None,
                                                               'deprecated': None,
                                                               'env': ['DYN_TOOL_CALL_PARSER'],
                                                               'hidden': False,
                                                               'dest': 'dyn_tool_call_parser',
                                                               'source': 'dynamo/common/configuration/utils.py:12',
                                                               'choices_from': 'runtime:tool '
                                                                               '(dynamo._core.get_tool_parser_names)'},
                                    '--enable-metrics': {'aliases': [],
                                                         'negation': ['--no-enable-metrics'],
                                                         'type': 'bool',
                                                         'choices': None,
                                                         'default': False,
                                                         'nargs': None,
                                                         'deprecated': None,
                                                         'env': ['DYN_ENABLE_METRICS'],
                                                         'hidden': False,
                                                         'dest': 'enable_metrics',
                                                         'source': 'dynamo/common/configuration/utils.py:18'},
                                    '--namespace': {'aliases': [],
                                                    'negation': [],
                                                    'type': 'str',
                                                    'choices': None,
                                                    'default': 'dynamo',
                                                    'nargs': None,
                                                    'deprecated': None,
                                                    'env': ['DYN_NAMESPACE'],
                                                    'hidden': False,
                                                    'dest': 'namespace',
                                                    'source': 'dynamo/common/configuration/utils.py:12'},
                                    '--served-model-name': {'aliases': [],
                                                            'negation': [],
                                                            'type': 'str',
                                                            'choices': None,
                                                            'default': None,
                                                            'nargs': None,
                                                            'deprecated': 'Deprecated alias of --model-name',
                                                            'env': [],
                                                            'hidden': False,
                                                            'dest': 'served_model_name',
                                                            'source': 'dynamo/sglang/args.py:17'}},
                          'parsers': [{'created': 'dynamo/sglang/args.py:15',
                                       'function': 'parse_args',
                                       'kind': 'argparse.ArgumentParser',
                                       'parsed_by': ['dynamo/sglang/args.py:19'],
                                       'conditional': False,
                                       'allow_abbrev': True,
                                       'n_flags': 4,
                                       'engine_flags': [{'engine': 'sglang',
                                                         'via': 'sglang.srt.server_args.ServerArgs.add_cli_args',
                                                         'source': 'dynamo/sglang/args.py:18',
                                                         'conditional': False}]}],
                          'engine_flags': [{'engine': 'sglang',
                                            'via': 'sglang.srt.server_args.ServerArgs.add_cli_args',
                                            'source': 'dynamo/sglang/args.py:18'}]}},
 'removed': {},
 'env': {'DYN_ENABLE_METRICS': {'type': 'bool',
                                'default': False,
                                'flags': ['sglang --enable-metrics'],
                                'source': 'dynamo/common/configuration/utils.py:18',
                                'read_by_python': ['flag_env_var']},
         'DYN_NAMESPACE': {'type': 'str',
                           'default': 'dynamo',
                           'flags': ['sglang --namespace'],
                           'source': 'dynamo/common/configuration/utils.py:12',
                           'read_by_python': ['flag_env_var']},
         'DYN_SGLANG_DEBUG': {'type': 'str',
                              'default': None,
                              'source': 'dynamo/sglang/main.py:8',
                              'sources': ['dynamo/sglang/main.py:8'],
                              'how': ['read']},
         'DYN_TOOL_CALL_PARSER': {'type': 'str',
                                  'default': None,
                                  'flags': ['sglang --dyn-tool-call-parser'],
                                  'source': 'dynamo/common/configuration/utils.py:12',
                                  'read_by_python': ['flag_env_var']}},
 'parsers': {'reasoning': None, 'tool': ['hermes', 'qwen3_coder']},
 'parsers_source': ['synthetic'],
 'exclusive': [['--dyn-tool-call-parser', '--tool-call-parser']],
 'conflicts': [{'flags': ['--dyn-tool-call-parser', '--tool-call-parser'],
                'action': 'refuse',
                'source': 'dynamo/sglang/args.py:10',
                'launchers': ['sglang']}]}


EXPECTED_TRTLLM = {'engine': 'trtllm',
 'version': '9.9.9',
 'version_in_tree': '9.9.9',
 'launchers': {'serve.disaggregated': {'source': 'tensorrt_llm/commands/serve.py',
                                       'command': 'disaggregated',
                                       'function': 'disaggregated',
                                       'positionals': [],
                                       'flags': {'--config_file': {'aliases': ['-c'],
                                                                   'negation': [],
                                                                   'type': 'str',
                                                                   'choices': None,
                                                                   'default': None,
                                                                   'nargs': None,
                                                                   'deprecated': None,
                                                                   'env': [],
                                                                   'hidden': False,
                                                                   'dest': 'config_file',
                                                                   'is_flag': False,
                                                                   'multiple': False,
                                                                   'line': 43}}},
               'serve': {'source': 'tensorrt_llm/commands/serve.py',
                         'command': 'serve',
                         'function': 'serve',
                         'positionals': [{'name': 'model', 'type': 'str', 'required': True, 'nargs': None}],
                         'flags': {'--a': {'aliases': [],
                                           'negation': [],
                                           'type': 'bool',
                                           'choices': None,
                                           'default': False,
                                           'nargs': None,
                                           'deprecated': None,
                                           'env': [],
                                           'hidden': False,
                                           'dest': 'a',
                                           'is_flag': True,
                                           'multiple': False,
                                           'line': 30},
                                   '--b': {'aliases': [],
                                           'negation': [],
                                           'type': 'bool',
                                           'choices': None,
                                           'default': False,
                                           'nargs': None,
                                           'deprecated': None,
                                           'env': [],
                                           'hidden': False,
                                           'dest': 'b',
                                           'is_flag': True,
                                           'multiple': False,
                                           'line': 31},
                                   '--backend': {'aliases': [],
                                                 'negation': [],
                                                 'type': 'str',
                                                 'choices': ['pytorch', 'tensorrt', 'trt'],
                                                 'default': 'pytorch',
                                                 'nargs': None,
                                                 'deprecated': None,
                                                 'env': [],
                                                 'hidden': False,
                                                 'dest': 'backend',
                                                 'is_flag': False,
                                                 'multiple': False,
                                                 'line': 23,
                                                 'choice_aliases': {'trt': 'tensorrt'}},
                                   '--log_level': {'aliases': [],
                                                   'negation': [],
                                                   'type': 'str',
                                                   'choices': ['internal_error', 'error', 'warning', 'info'],
                                                   'default': 'info',
                                                   'nargs': None,
                                                   'deprecated': None,
                                                   'env': [],
                                                   'hidden': False,
                                                   'dest': 'log_level',
                                                   'is_flag': False,
                                                   'multiple': False,
                                                   'line': 24,
                                                   'choices_expr': 'list(severity_map.keys())',
                                                   'choices_source': 'tensorrt_llm.logger.severity_map keys '
                                                                     '(tensorrt_llm/logger.py)'},
                                   '--max_batch_size': {'aliases': [],
                                                        'negation': [],
                                                        'type': 'int',
                                                        'choices': None,
                                                        'default': 2048,
                                                        'nargs': None,
                                                        'deprecated': None,
                                                        'env': [],
                                                        'hidden': False,
                                                        'dest': 'max_batch_size',
                                                        'is_flag': False,
                                                        'multiple': False,
                                                        'line': 26,
                                                        'default_expr': "BuildConfig.model_fields['max_batch_size'].default"},
                                   '--media_io_kwargs': {'aliases': [],
                                                         'negation': [],
                                                         'type': 'json',
                                                         'choices': None,
                                                         'default': None,
                                                         'nargs': None,
                                                         'deprecated': None,
                                                         'env': [],
                                                         'hidden': False,
                                                         'dest': 'media_io_kwargs',
                                                         'is_flag': False,
                                                         'multiple': False,
                                                         'line': 28},
                                   '--old_flag': {'aliases': [],
                                                  'negation': [],
                                                  'type': 'str',
                                                  'choices': None,
                                                  'default': None,
                                                  'nargs': None,
                                                  'deprecated': None,
                                                  'env': [],
                                                  'hidden': True,
                                                  'dest': 'old_flag',
                                                  'is_flag': False,
                                                  'multiple': False,
                                                  'line': 29},
                                   '--tp_size': {'aliases': ['--tensor_parallel_size'],
                                                 'negation': [],
                                                 'type': 'int',
                                                 'choices': None,
                                                 'default': 1,
                                                 'nargs': None,
                                                 'deprecated': None,
                                                 'env': [],
                                                 'hidden': False,
                                                 'dest': 'tp_size',
                                                 'is_flag': False,
                                                 'multiple': False,
                                                 'line': 25},
                                   '--verbose': {'aliases': [],
                                                 'negation': ['--quiet'],
                                                 'type': 'bool',
                                                 'choices': None,
                                                 'default': False,
                                                 'nargs': None,
                                                 'deprecated': None,
                                                 'env': [],
                                                 'hidden': False,
                                                 'dest': 'verbose',
                                                 'is_flag': True,
                                                 'multiple': False,
                                                 'line': 27}}},
               '_group': {'source': 'tensorrt_llm/commands/serve.py',
                          'subcommands': {'disaggregated': 'disaggregated', 'serve': 'serve'},
                          'default_command': 'serve'},
               'llm_args': {'source': 'tensorrt_llm/llmapi/llm_args.py',
                            'note': "YAML keys of --config/--extra_llm_api_options; see top-level 'llm_args'"}},
 'removed': {'--old_flag': '--old_flag was removed; use --config'},
 'env': {'TLLM_QUIET': {'type': 'bool',
                        'default': '0',
                        'sources': ['tensorrt_llm/commands/serve.py:39'],
                        'source': 'tensorrt_llm/commands/serve.py:39'},
         'TRTLLM_SERVE_WORKERS': {'type': 'int',
                                  'default': '4',
                                  'sources': ['tensorrt_llm/commands/serve.py:38'],
                                  'source': 'tensorrt_llm/commands/serve.py:38'}},
 'parsers': {'reasoning': None, 'tool': None, 'source': {}},
 'exclusive': [['--a', '--b']],
 'llm_args': {'source': 'tensorrt_llm/llmapi/llm_args.py',
              'top_classes': {'base': 'BaseLlmArgs', 'torch': 'TorchLlmArgs'},
              'extra': {'base': 'forbid', 'torch': 'forbid'},
              'top_level': {'torch': {'attn_backend': {'type': 'str', 'default': 'TRTLLM', 'status': 'deprecated'},
                                      'model': {'type': 'str', 'required': True},
                                      'moe_config': {'type': 'MoeConfig',
                                                     'default_factory': 'MoeConfig',
                                                     'status': 'beta',
                                                     'classes': ['MoeConfig']},
                                      'scheduler_config': {'type': 'SchedulerConfig',
                                                           'default_factory': 'SchedulerConfig',
                                                           'classes': ['SchedulerConfig']},
                                      'speculative_model': {'type': 'Optional[str]',
                                                            'default': None,
                                                            'validation_alias': ['speculative_model',
                                                                                 'speculative_model_dir']},
                                      'tensor_parallel_size': {'type': 'int', 'default': 1}}},
              'nested': {'MoeConfig': {'source': 'tensorrt_llm/llmapi/llm_args.py',
                                       'extra': 'forbid',
                                       'bases': ['StrictBaseModel'],
                                       'fields': {'backend': {'type': "Literal['AUTO', 'CUTLASS', 'WIDEEP', "
                                                                      "'TRTLLM']",
                                                              'choices': ['AUTO', 'CUTLASS', 'WIDEEP', 'TRTLLM'],
                                                              'default': 'AUTO',
                                                              'status': 'beta'},
                                                  'max_num_tokens': {'type': 'Optional[int]', 'default': None}}},
                         'SchedulerConfig': {'source': 'tensorrt_llm/llmapi/llm_args.py',
                                             'extra': 'forbid',
                                             'bases': ['StrictBaseModel'],
                                             'fields': {'capacity_scheduler_policy': {'type': 'CapacitySchedulerPolicy',
                                                                                      'choices': ['MAX_UTILIZATION',
                                                                                                  'GUARANTEED_NO_EVICT'],
                                                                                      'enum': ['CapacitySchedulerPolicy'],
                                                                                      'default': 'GUARANTEED_NO_EVICT',
                                                                                      'default_expr': 'CapacitySchedulerPolicy.GUARANTEED_NO_EVICT'}}}},
              'speculative_decoding_types': None,
              'extra_dict': None,
              'deprecations_and_renames': [{'class': 'BaseLlmArgs',
                                            'field': 'speculative_model',
                                            'accepts_old_name': 'speculative_model_dir',
                                            'via': 'validation_alias'},
                                           {'class': 'TorchLlmArgs',
                                            'field': 'attn_backend',
                                            'deprecated': 'status=deprecated'}],
              'enums': {'CapacitySchedulerPolicy': {'MAX_UTILIZATION': 'MAX_UTILIZATION',
                                                    'GUARANTEED_NO_EVICT': 'GUARANTEED_NO_EVICT'}}},
 'disagg_config': None,
 'checks': []}


def write_tree(root: Path, files: dict, extra: dict | None = None) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text.lstrip("\n"), encoding="utf-8")
    for rel, text in (extra or {}).items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


DYNAMO_SCAN = json.dumps({"parsers": {"tool": ["qwen3_coder", "hermes"], "reasoning": None}, "parsers_source": ["synthetic"]})


# ---------------------------------------------------------------------------------------------
# synthetic trees: the exact records
# ---------------------------------------------------------------------------------------------

def test_vllm_record_of_a_synthetic_tree(tmp_path):
    """Explicit add_argument (host, port with its environment variable, a registry-backed
    parser flag), get_kwargs of a config dataclass (Literal choices sorted, a bool with its
    --no- negation, Optional[int] nullable, a docstring deprecation), envs.py variables, the
    tool-parser registry and a __post_init__ value check."""
    assert vllm.extract(write_tree(tmp_path, VLLM), "9.9.9") == EXPECTED_VLLM


def test_sglang_record_of_a_synthetic_tree(tmp_path):
    """A[T, Arg(...)] / A[T, "help"] dataclass fields (aliases, Literal choices, store_true bool,
    List[int] nargs, required without default), explicit add_argument with a choice added only
    under an environment condition, a deprecated flag with its replacement, a flag default read
    from the environment, Envs variables, parser registries and the __post_init__ checks."""
    root = write_tree(tmp_path, SGLANG)
    got = sglang.extract(root, "9.9.9")
    digest = hashlib.sha256((root / "sglang/srt/server_args.py").read_bytes()).hexdigest()
    assert got["launchers"]["launch_server"].pop("source_sha256") == {"sglang/srt/server_args.py": digest}
    expected = json.loads(json.dumps(EXPECTED_SGLANG))
    expected["launchers"]["launch_server"].pop("source_sha256")
    assert got == expected


def test_dynamo_record_of_a_synthetic_tree(tmp_path):
    """An argument group whose helper reads the default from a DYN_* variable (env_or_default),
    a BooleanOptionalAction helper, choices from the compiled runtime's registry, the engine's
    own flags passed on (ServerArgs.add_cli_args), and the refusal of --dyn-tool-call-parser with
    --tool-call-parser built by an f-string at its call site."""
    root = write_tree(tmp_path, DYNAMO, {"runtime_scan.json": DYNAMO_SCAN})
    assert dynamo.extract(root, "9.9.9") == EXPECTED_DYNAMO


def test_trtllm_record_of_a_synthetic_tree(tmp_path):
    """click options (ChoiceWithAlias, choices from a registry dict, a default from a pydantic
    model's model_fields, --x/--no-x, is_flag, a JSON-parsed string), a DefaultGroup with
    sub-commands, a removal message and a refused pair in the command body, environment reads,
    and the LLM-API schema (Literal and enum choices, Field status / aliases, extra=forbid)."""
    assert trtllm.extract(write_tree(tmp_path, TRTLLM), "9.9.9") == EXPECTED_TRTLLM


@pytest.mark.parametrize("engine,files,extra", [
    (vllm, "VLLM", None), (sglang, "SGLANG", None), (dynamo, "DYNAMO", {"runtime_scan.json": DYNAMO_SCAN}),
    (trtllm, "TRTLLM", None)])
def test_a_rerun_gives_the_same_bytes(tmp_path, engine, files, extra):
    root = write_tree(tmp_path, globals()[files], extra)
    assert command.record_text(engine.extract(root, "1")) == command.record_text(engine.extract(root, "1"))


def test_nothing_of_the_tree_is_run(tmp_path):
    """A release's code that would act when imported or run (write a file, exit) does nothing."""
    files = dict(VLLM)
    files["vllm/entrypoints/cli/serve.py"] = (
        "import os, sys\nopen(os.path.join(os.path.dirname(__file__), 'RAN'), 'w').write('x')\nsys.exit(3)\n"
        + VLLM["vllm/entrypoints/cli/serve.py"].lstrip("\n"))
    root = write_tree(tmp_path, files)
    assert "--swap-space" in vllm.extract(root, "1")["launchers"]["serve"]["flags"]
    assert not (root / "vllm/entrypoints/cli/RAN").exists()


def test_a_tree_that_is_not_the_engine_is_an_error(tmp_path):
    (tmp_path / "x.py").write_text("x = 1\n")
    for engine in (vllm, sglang, dynamo):
        with pytest.raises(RuntimeError):
            engine.extract(tmp_path, "1")


# ---------------------------------------------------------------------------------------------
# pins and inputs
# ---------------------------------------------------------------------------------------------

def test_every_pinned_release_line_is_there():
    rels = pins.releases(pins.load_pins())
    versions = {(r.package, r.version) for r in rels}
    for pkg, v in [("vllm", "0.6.2"), ("vllm", "0.33.0"), ("sglang", "0.4.0.post2"), ("sglang", "0.4.9"),
                   ("sglang", "0.5.23"), ("sglang-router", "0.3.2"), ("ai-dynamo", "0.4.1"), ("ai-dynamo", "1.6.1"),
                   ("tensorrt-llm", "0.17.0.post1"), ("tensorrt-llm", "1.4.0rc1")]:
        assert (pkg, v) in versions
    vllm_minors = {".".join(r.version.split(".")[:2]) for r in rels if r.package == "vllm"}
    assert vllm_minors == {f"0.{m}" for m in range(6, 34)}
    dyn = [r for r in rels if r.engine == "dynamo"]
    assert all([p.package for p in r.pins] == ["ai-dynamo", "ai-dynamo-runtime"] for r in dyn)
    assert all(r.unavailable for r in rels if r.engine == "trtllm")
    assert not any(r.unavailable for r in rels if r.engine != "trtllm")


def test_bad_pins_are_refused(tmp_path):
    good = {"engine": "vllm", "package": "vllm", "version": "1.0", "kind": "sdist", "file": "vllm-1.0.tar.gz",
            "sha256": "0" * 64, "bytes": 1}
    for change, needle in [({"sha256": "abc"}, "sha256"), ({"package": "sglang"}, "not a package"),
                           ({"colour": "red"}, "unknown"), ({"kind": "egg"}, "kind")]:
        p = tmp_path / "inputs.yaml"
        p.write_text(yaml.safe_dump([{**good, **change}]))
        with pytest.raises(ValueError, match=needle):
            pins.load_pins(p)
    p.write_text(yaml.safe_dump([{**good, "engine": "dynamo", "package": "ai-dynamo-runtime"}]))
    with pytest.raises(ValueError, match="without ai-dynamo"):
        pins.releases(pins.load_pins(p))
    with pytest.raises(ValueError, match="no such pinned release"):
        pins.select(pins.releases(pins.load_pins()), ["vllm==0.0.1"])


def _pin(package, file, data):
    return pins.Pin(pins.PACKAGES[package].engine, package, "1.0", "sdist" if file.endswith(".tar.gz") else "wheel",
                    file, hashlib.sha256(data).hexdigest(), len(data))


def _tar(members: dict) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_an_archive_is_checked_and_only_what_the_extractor_reads_is_kept(tmp_path):
    data = _tar({"vllm-1.0/PKG-INFO": "Name: vllm\nVersion: 1.0\n", "vllm-1.0/vllm/__init__.py": "",
                 "vllm-1.0/vllm/envs.py": "x = 1\n", "vllm-1.0/csrc/kernel.cu": "//", "vllm-1.0/../evil.py": "x",
                 "vllm-1.0/setup.py": "raise SystemExit"})
    archive = tmp_path / "vllm-1.0.tar.gz"
    archive.write_bytes(data)
    pin = _pin("vllm", archive.name, data)
    release = pins.Release("vllm", "vllm", "1.0", [pin])
    root, inputs = fetch.ensure_release(release, tmp_path / "cache", local=archive)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == \
        ["PKG-INFO", "vllm/__init__.py", "vllm/envs.py"]
    assert inputs == [pin.record()]
    bad = pins.Pin("vllm", "vllm", "1.0", "sdist", archive.name, "0" * 64, len(data))
    with pytest.raises(fetch.FetchError, match="sha256"):
        fetch.ensure_release(pins.Release("vllm", "vllm", "1.0", [bad]), tmp_path / "cache", local=archive)


def test_wheel_members_of_each_package():
    keep = fetch._member_path
    assert keep("sglang", "sglang-0.5.0/python/sglang/srt/server_args.py") == "sglang/srt/server_args.py"
    assert keep("sglang", "sglang/srt/test/test_x.py") is None
    assert keep("sglang-router", "py_src/sglang_router/launch_router.py") == "sglang_router/launch_router.py"
    assert keep("ai-dynamo", "dynamo/frontend/main.py") == "dynamo/frontend/main.py"
    assert keep("ai-dynamo", "dynamo/tests/test_a.py") is None
    assert keep("ai-dynamo-runtime", "dynamo/_core.pyi") == "dynamo/_core.pyi"
    assert keep("tensorrt-llm", "tensorrt_llm-1.0.data/scripts/trtllm-llmapi-launch") == \
        "tensorrt_llm/llmapi/trtllm-llmapi-launch"
    assert keep("vllm", "vllm-1.0.dist-info/METADATA") == "PKG-INFO"
    assert keep("vllm", "/abs/vllm/x.py") is None


def test_a_cached_tree_from_another_file_is_refused(tmp_path):
    release = next(r for r in pins.releases(pins.load_pins()) if r.label == "sglang==0.4.9")
    d = fetch.release_dir(release, tmp_path)
    (d / "sglang").mkdir(parents=True)
    (d / "input.json").write_text(json.dumps({"name": "sglang", "file": "sglang-0.4.9.tar.gz", "sha256": "1" * 64}))
    with pytest.raises(fetch.FetchError, match="re-fetch"):
        fetch.ensure_release(release, tmp_path, download=False)


def test_the_stand_in_backend_answers_metadata_only(tmp_path, monkeypatch):
    (tmp_path / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 0.6.2\n\nlong description\n")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "meta"
    out.mkdir()
    assert prepare_metadata_for_build_wheel(str(out)) == "vllm-0.6.2.dist-info"
    assert (out / "vllm-0.6.2.dist-info" / "METADATA").read_text().splitlines()[1:3] == ["Name: vllm", "Version: 0.6.2"]


def test_the_engines_target_writes_records(tmp_path, capsys):
    src = write_tree(tmp_path / "src", VLLM)
    records = tmp_path / "records"
    assert command.main(["vllm==0.6.2", "--from", str(src), "--records", str(records), "--cache", str(tmp_path),
                         "--no-compile"]) == 0
    rec = json.loads((records / "vllm" / "0.6.2.json").read_text())
    assert rec["package"] == "vllm" and rec["version"] == "0.6.2"
    assert rec["input"] == [{"package": "vllm", "version": "0.6.2", "kind": "directory",
                             "tree_sha256": fetch.tree_digest(src)}]
    assert rec["launchers"] == {**EXPECTED_VLLM["launchers"]}
    assert command.main(["trtllm==1.2.1", "--records", str(records), "--cache", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    rec = json.loads((records / "trtllm" / "1.2.1.json").read_text())
    assert rec["unavailable"].startswith("PyPI holds only") and rec["input"][0]["file"] == "tensorrt_llm-1.2.1.tar.gz"
    assert command.main(["sglang==0.5.23", "--no-download", "--records", str(records), "--cache", str(tmp_path),
                         "--no-compile"]) == 1
    assert "not in the cache" in capsys.readouterr().err
    assert command.main(["nosuch"]) == 2


# ---------------------------------------------------------------------------------------------
# real releases, when their extracted trees are in the cache
# ---------------------------------------------------------------------------------------------

RELEASES = {r.label: r for r in pins.releases(pins.load_pins())}
_RECORDS: dict = {}


def real(label: str) -> dict:
    """The record of a pinned release from the build cache (skipped when the tree is absent)."""
    release = RELEASES[label]
    d = fetch.release_dir(release)
    if not d.is_dir():
        pytest.skip(f"{label} is not in the build cache ({d}); CI does not download engines")
    if label not in _RECORDS:
        _RECORDS[label] = command.extract_release(release, download=False)
    return _RECORDS[label]


def flags(label, launcher="serve"):
    return real(label)["launchers"][launcher]["flags"]


def test_vllm_all2all_backend_is_new_in_0_11_2():
    assert "--all2all-backend" not in flags("vllm==0.11.0")
    assert "--all2all-backend" in flags("vllm==0.11.2")
    assert "--all2all-backend" in flags("vllm==0.33.0")


def test_vllm_swap_space_is_accepted_through_0_17_1():
    assert "--swap-space" in flags("vllm==0.10.0")
    assert "--swap-space" in flags("vllm==0.17.1")
    assert "--swap-space" not in flags("vllm==0.18.1")


def test_vllm_llama3_json_tool_parser_from_0_6_6_post1():
    assert "llama3_json" not in real("vllm==0.6.2")["parsers"]["tool"]
    assert real("vllm==0.6.2")["parsers"]["tool"] == ["mistral", "hermes"]
    assert "llama3_json" in real("vllm==0.6.6.post1")["parsers"]["tool"]


def test_vllm_all2all_backend_variable_from_0_9_2_to_0_15_1():
    has = {v: "VLLM_ALL2ALL_BACKEND" in real(f"vllm=={v}")["env"] for v in ("0.8.5.post1", "0.9.2", "0.15.1", "0.16.0")}
    assert has == {"0.8.5.post1": False, "0.9.2": True, "0.15.1": True, "0.16.0": False}


def test_sglang_0_4_9_parsers():
    rec = real("sglang==0.4.9")
    assert rec["parsers"]["tool"] == ["llama3", "qwen25", "mistral", "deepseekv3", "pythonic"]
    assert rec["parsers"]["reasoning"] == ["deepseek-r1", "qwen3", "kimi"]
    assert "--moe-a2a-backend" not in rec["launchers"]["launch_server"]["flags"]


def test_dynamo_tool_call_parser_pair_is_refused_from_1_0_2():
    pair = {"--dyn-tool-call-parser", "--tool-call-parser"}
    assert pair not in [set(p) for p in real("ai-dynamo==0.9.1")["exclusive"]]
    assert any(set(c["flags"]) == pair and c["action"] == "warn_prefer" for c in real("ai-dynamo==0.9.1")["conflicts"])
    assert pair in [set(p) for p in real("ai-dynamo==1.0.2")["exclusive"]]
    assert any(set(c["flags"]) == pair and c["launchers"] == ["sglang"] for c in real("ai-dynamo==1.0.2")["conflicts"])


def test_dynamo_1_6_1_parser_names_are_the_compiled_runtime_library_s():
    """The parser names read from the compiled runtime library at 1.6.1 (the --dyn-*-parser
    choices) are the ones the shipped data holds at 1.6.1."""
    d = fetch.release_dir(RELEASES["ai-dynamo==1.6.1"])
    scan = dynamo.load_runtime_scan(d) if d.is_dir() else None
    if scan is None:
        pytest.skip(f"ai-dynamo==1.6.1 is not in the build cache ({d})")
    shipped = _shipped("dynamo")
    for kind in ("tool", "reasoning"):
        at = sorted(n for n, rng in shipped["parsers"][kind].items() if "1.6.1" in versions.expand(rng, shipped["releases"]))
        assert sorted(set(scan["parsers"][kind])) == at


# ---------------------------------------------------------------------------------------------
# the shipped data (rules/releases/<engine>.yaml) is what the compiler makes of the pinned releases
# ---------------------------------------------------------------------------------------------

def _shipped(engine: str) -> dict:
    """rules/releases/<engine>.yaml with its -env and -checks parts (where it has them: the
    sglang-router series has none), as one dict."""
    data = yaml.safe_load((ROOT / "rules" / "releases" / f"{engine}.yaml").read_text(encoding="utf-8"))
    for part in merge.SPLIT:
        path = ROOT / "rules" / "releases" / f"{engine}-{part}.yaml"
        if path.exists():
            data.update({part: yaml.safe_load(path.read_text(encoding="utf-8"))[part]})
    return data


def _series(rec: dict) -> str:
    """The compiled file a record goes to (command.SERIES): its engine's, or sglang-router's."""
    return next(name for name, (e, p) in command.SERIES.items() if e == rec["engine"] and p == rec["package"])


def _at(data: dict, v: str) -> dict:
    """What compiled ``data`` says of release ``v``: each launcher's flags, the environment
    variables, removed flags (attributes as ``v`` has them, the file each was read from aside:
    the data keeps the newest release's), the parser names, and the refused pairs and checks
    (by identity: the data keeps the newest release's wording)."""
    order = data["releases"]

    def held(entry: dict) -> bool:
        return v in versions.expand(str(entry.get("in") or ""), order)

    def view(entry: dict) -> dict:
        out = {}
        for k in sorted(set(entry) | set(entry.get("by_release") or {})):
            if k in ("in", "by_release") or k in merge.PROVENANCE:
                continue
            value = attr(entry, k, v, order)
            if k == "default" or value not in merge.EMPTY:
                out[k] = value
        return out

    return {
        "launchers": {name: {f: view(e) for f, e in (spec.get("flags") or {}).items() if held(e)}
                      for name, spec in data["launchers"].items() if held(spec)},
        "env": {n: view(e) for n, e in (data.get("env") or {}).items() if held(e)},
        "removed": {n: view(e) for n, e in (data.get("removed") or {}).items() if held(e)},
        # a kind no parser of ``v`` has is as absent as a kind the data lacks
        "parsers": {kind: names for kind, table in (data.get("parsers") or {}).items()
                    if (names := sorted(n for n, rng in table.items() if v in versions.expand(rng, order)))},
        "exclusive": sorted(json.dumps(merge._pair_identity(f)) for f in data.get("exclusive") or [] if held(f)),
        "checks": sorted(json.dumps(merge._check_identity(f)) for f in data.get("checks") or [] if held(f)),
    }


def _record(label: str, tmp_path_factory) -> dict:
    """The record of a pinned release: from the build cache, or, in a deep run (CI), downloaded
    from PyPI into a fresh cache (the pins' sha256 checked); skipped otherwise."""
    release = RELEASES[label]
    if fetch.release_dir(release).is_dir():
        return real(label)
    if not DEEP:
        pytest.skip(f"{label} is not in the build cache ({fetch.release_dir(release)}); a deep run (CI=true) downloads it")
    return command.extract_release(release, tmp_path_factory.mktemp("engine-cache"), download=True)


# one small release of each engine (a few MB from PyPI in CI), and the newest cached ones
@pytest.mark.parametrize("label", ["vllm==0.6.2", "sglang==0.4.0.post2", "ai-dynamo==0.4.1", "sglang-router==0.0.11",
                                   "vllm==0.33.0", "sglang==0.5.23", "ai-dynamo==1.6.1", "sglang-router==0.3.2"])
def test_the_shipped_data_at_a_release_is_what_its_package_says(label, tmp_path_factory):
    rec = _record(label, tmp_path_factory)
    series, v = _series(rec), rec["version"]
    alone = merge.merge(series, {v: rec})
    assert _at(_shipped(series), v) == _at(alone, v)


def test_the_newest_router_release_is_read_from_its_python_cli():
    """sglang-router 0.3.2 (the newest on PyPI) still defines its CLI in Python:
    RouterArgs.add_cli_args in sglang_router/router_args.py, which launch_router's
    parse_router_args and launch_server's main call (cli.py's `smg launch` / `smg server` only
    dispatch to them); its PD flags and the 0.3.2-only --assignment-mode are read."""
    rec = real("sglang-router==0.3.2")
    router = rec["launchers"]["router"]
    assert router["source"] == ["sglang_router/launch_router.py", "sglang_router/router_args.py"]
    assert router["flags"]["--pd-disaggregation"]["source"].startswith("sglang_router/router_args.py:")
    assert router["flags"]["--assignment-mode"]["choices"] == ["random", "min_load", "min_group"]
    server = rec["launchers"]["router.launch_server"]
    assert "--router-dp-worker-base-port" in server["flags"] and "--host" not in server["flags"]
    assert [i["call"] for i in server["includes"]] == ["ServerArgs.add_cli_args"]


def test_the_shipped_router_data_is_a_rerun_of_the_pinned_router_releases(tmp_path):
    """`engines sglang-router` (six small router packages; seconds): every pinned router release's
    record from the build cache, compiled, gives rules/releases/sglang-router.yaml byte for byte."""
    rels = [r for r in RELEASES.values() if r.package == "sglang-router"]
    missing = [r.label for r in rels if not fetch.release_dir(r).is_dir()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not in the build cache; python -m cfglint.knowledge.build engines "
                    f"sglang-router fetches them")
    records = tmp_path / "records"
    for r in rels:
        command.write_record(command.extract_release(r, download=False), r, records)
    assert command.compile_engine("sglang", records, tmp_path / "out", {"sglang-router"}) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["sglang-router.yaml"]
    assert (tmp_path / "out" / "sglang-router.yaml").read_bytes() == \
        (ROOT / "rules" / "releases" / "sglang-router.yaml").read_bytes()


def test_the_shipped_data_is_a_rerun_of_every_pinned_release(tmp_path):
    """The whole compile: every pinned release's record (from the build cache; about ten minutes
    on two cores, so in deep runs only) merged gives the shipped files byte for byte."""
    if not DEEP:
        pytest.skip("the whole compile runs in deep runs (CI=true or CFGLINT_DEEP=1)")
    compiled = {p for _e, p in command.SERIES.values()}   # the engines' packages and sglang-router
    missing = [r.label for r in RELEASES.values() if not r.unavailable and r.package in compiled
               and not fetch.release_dir(r).is_dir()]
    if missing:
        pytest.skip(f"{len(missing)} pinned releases are not in the build cache ({', '.join(missing[:3])}, ...)")
    records = tmp_path / "records"
    for r in RELEASES.values():
        if r.package in compiled:
            command.write_record(command.extract_release(r, download=False), r, records)
    for engine in ("vllm", "sglang", "dynamo"):
        assert command.compile_engine(engine, records, tmp_path / "out") == 0
        for path in sorted((tmp_path / "out").glob(f"{engine}*.yaml")):
            assert path.read_bytes() == (ROOT / "rules" / "releases" / path.name).read_bytes(), path.name


def test_compile_refuses_to_leave_a_pinned_release_out(tmp_path, capsys):
    (tmp_path / "records" / "vllm").mkdir(parents=True)
    assert command.compile_engine("vllm", tmp_path / "records", tmp_path / "out") == 1
    assert "no record of 0.6.2, 0.6.6.post1" in capsys.readouterr().err and not (tmp_path / "out").exists()
    # TensorRT-LLM: PyPI holds no source of any pinned release; nothing is written, and it is said
    assert command.compile_engine("trtllm", tmp_path / "records", tmp_path / "out") == 0
    assert "no pinned release has source" in capsys.readouterr().out


@pytest.mark.parametrize("label", ["vllm==0.6.2", "sglang==0.4.0.post2", "ai-dynamo==0.4.1", "sglang-router==0.1.9",
                                   "sglang-router==0.3.2"])
def test_a_rerun_on_a_real_tree_gives_the_same_bytes(label):
    first = command.record_text(real(label))
    _RECORDS.pop(label)
    assert command.record_text(real(label)) == first


def test_zip_members_are_read_too(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("sglang_router/launch_router.py", "x = 1\n")
        z.writestr("sglang_router-1.0.dist-info/METADATA", "Name: sglang-router\n")
    archive = tmp_path / "sglang_router-1.0-py3-none-any.whl"
    archive.write_bytes(buf.getvalue())
    pin = _pin("sglang-router", archive.name, buf.getvalue())
    root, _ = fetch.ensure_release(pins.Release("sglang", "sglang-router", "1.0", [pin]), tmp_path, local=archive)
    assert [p.relative_to(root).as_posix() for p in root.rglob("*.py")] == ["sglang_router/launch_router.py"]
