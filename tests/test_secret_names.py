"""Redaction knows the credential variables of the tools people run beside torch, and leaves the rest readable."""

from __future__ import annotations

import pytest
from gpudoctor.facts import EnvFacts, Facts, TorchFacts
from gpudoctor.probes.env import probe_env
from gpudoctor.redact import Identity, redact
from gpudoctor.secretnames import is_secret_name

CREDENTIALS = """
HF_TOKEN HUGGING_FACE_HUB_TOKEN HUGGINGFACE_TOKEN HF_API_TOKEN
WANDB_API_KEY WANDB_IDENTITY_TOKEN_FILE
AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_SECURITY_TOKEN
GOOGLE_APPLICATION_CREDENTIALS GOOGLE_API_KEY CLOUDSDK_AUTH_ACCESS_TOKEN GCP_SERVICE_ACCOUNT_KEY
AZURE_CLIENT_SECRET AZURE_STORAGE_KEY AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_CONNECTION_STRING
AZURE_STORAGE_SAS_TOKEN AZURE_CLIENT_CERTIFICATE_PASSWORD AZURE_OPENAI_API_KEY ARM_CLIENT_SECRET
MLFLOW_TRACKING_PASSWORD MLFLOW_TRACKING_TOKEN
COMET_API_KEY COMET_REST_API_KEY NEPTUNE_API_TOKEN KAGGLE_KEY KAGGLE_API_TOKEN
OPENAI_API_KEY ANTHROPIC_API_KEY COHERE_API_KEY REPLICATE_API_TOKEN GROQ_API_KEY MISTRAL_API_KEY
DATABRICKS_TOKEN CLEARML_API_ACCESS_KEY CLEARML_API_SECRET_KEY LANGCHAIN_API_KEY NGC_API_KEY NVIDIA_API_KEY
GITHUB_TOKEN GH_TOKEN CI_JOB_TOKEN NPM_TOKEN TWINE_PASSWORD PYPI_API_TOKEN DOCKER_PASSWORD
PGPASSWORD MYSQL_PWD REDIS_PASSWORD SENTRY_DSN JUPYTER_TOKEN
TORCH_HUB_PASS PYTORCH_S3_CREDS TORCH_HUB_TOKEN PYTORCH_API_KEY TORCH_SIGNATURE TORCH_SESSION_COOKIE
""".split()

PLAIN = """
CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER PYTORCH_CUDA_ALLOC_CONF TORCH_HOME TORCH_CUDA_ARCH_LIST
LD_LIBRARY_PATH PWD OLDPWD CUDA_MPS_PIPE_DIRECTORY TORCH_COMPILE_DEBUG PYTORCH_NVML_BASED_CUDA_CHECK
TORCHINDUCTOR_CACHE_DIR CONDA_PREFIX VIRTUAL_ENV NVIDIA_DRIVER_CAPABILITIES PYTHONPATH
""".split()


@pytest.mark.parametrize("name", CREDENTIALS)
def test_credential_variables_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", PLAIN)
def test_ordinary_variables_stay_readable(name: str) -> None:
    assert not is_secret_name(name)


def test_a_facts_file_with_every_credential_reads_set_once_redacted() -> None:
    facts = Facts(env=EnvFacts(tuple((name, f"value-of-{name}") for name in sorted(CREDENTIALS + PLAIN))))
    shown = dict(redact(facts, Identity()).env.variables)
    assert {n for n, v in shown.items() if v == "set"} == set(CREDENTIALS)
    assert all(shown[n] == f"value-of-{n}" for n in PLAIN)


def test_the_live_probe_never_records_a_torch_credential() -> None:
    env = probe_env({"TORCH_HUB_PASS": "hunter2", "PYTORCH_S3_CREDS": "AKIA:abc", "TORCH_HOME": "/data/torch"})
    assert dict(env.variables) == {"TORCH_HUB_PASS": "set", "PYTORCH_S3_CREDS": "set", "TORCH_HOME": "/data/torch"}


@pytest.mark.parametrize("text, hidden", [
    ("https://acct.blob.core.windows.net/c/f?sv=2021-08-06&sig=AbC123xyzSECRET", "AbC123xyzSECRET"),
    ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=c2VjcmV0a2V5Cg==;", "c2VjcmV0a2V5Cg=="),
    ("https://s3.amazonaws.com/b/k?X-Amz-Credential=AKID%2F2024&X-Amz-Signature=deadbeefcafe", "deadbeefcafe"),
    ("mysql --user=ana --password=hunter2 db", "hunter2"),
    ("curl -H 'Cookie: session=0123abcd' --data pwd=hunter3", "hunter3"),
])
def test_secrets_inside_values_are_masked(text: str, hidden: str) -> None:
    facts = Facts(torch=TorchFacts(init_error=text))
    assert hidden not in (redact(facts, Identity()).torch.init_error or "")
