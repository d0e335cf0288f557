# Types of the optional compiled loops (src/nbayes/_kernels.pyx), for type checkers; the
# docstrings there say what each function does.
import numpy as np

def simd_variant(force_baseline: bool | None = None) -> str: ...
def categorical_scores(
    codes: np.ndarray, tables: dict, out: np.ndarray, base: np.ndarray, lowest: int
) -> tuple[int, int]: ...
def column_max_codes(codes: np.ndarray, weights: np.ndarray) -> np.ndarray: ...
def count_codes(
    codes: np.ndarray,
    classes: np.ndarray,
    weights: np.ndarray,
    offsets: np.ndarray,
    per_class: int,
    counts: np.ndarray,
    lowest: int,
    limit: int,
) -> int: ...
def class_moment_sums(
    X: np.ndarray,
    classes: np.ndarray,
    weights: np.ndarray,
    shift: np.ndarray,
    sum_dev: np.ndarray,
    sum_sq: np.ndarray,
) -> None: ...
def soft_count_codes(
    codes: np.ndarray,
    weights: np.ndarray,
    offsets: np.ndarray,
    counts: np.ndarray,
    lowest: int,
    limit: int,
) -> int: ...
def soft_moment_sums(
    X: np.ndarray,
    weights: np.ndarray,
    shift: np.ndarray,
    sum_dev: np.ndarray,
    sum_sq: np.ndarray,
) -> None: ...
def normalise_rows(jll: np.ndarray, log_space: bool) -> int: ...
def em_responsibilities(
    scores: np.ndarray,
    codes: np.ndarray,
    M: int,
    row_weight: np.ndarray,
    top: np.ndarray,
    total: np.ndarray,
) -> None: ...
def grid_scores(
    X: np.ndarray,
    scale: np.ndarray,
    origin: np.ndarray,
    table: np.ndarray,
    slope: np.ndarray,
    curve: np.ndarray,
    interpolate: bool,
    out: np.ndarray,
) -> None: ...
def grid_counts(
    X: np.ndarray,
    classes: np.ndarray,
    weights: np.ndarray,
    scale: np.ndarray,
    start: np.ndarray,
    counts: np.ndarray,
) -> None: ...

class TextTable:
    def __len__(self) -> int: ...
    def lookup(self, values: list) -> np.ndarray: ...
    def add(self, values: list, codes: np.ndarray) -> None: ...
    def find_or_add(self, values: list, first: int) -> tuple[np.ndarray, np.ndarray]: ...

def csr_dense_product(
    data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, W: np.ndarray, out: np.ndarray
) -> None: ...
def held_columns(
    indices: np.ndarray, position: np.ndarray, narrow: np.ndarray, columns: np.ndarray
) -> int: ...
def csc_sparse_table_product(
    data: np.ndarray,
    rows: np.ndarray,
    indptr: np.ndarray,
    cell_ptr: np.ndarray,
    cell_class: np.ndarray,
    logged: np.ndarray,
    out: np.ndarray,
) -> None: ...
def csr_class_sums(
    data: np.ndarray,
    indices: np.ndarray,
    indptr: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray,
    out: np.ndarray,
) -> None: ...
def stacked_log_cells(
    counts: np.ndarray,
    columns: np.ndarray,
    pseudo: np.ndarray,
    log_small: np.ndarray,
    log_totals: np.ndarray,
    out: np.ndarray,
    rest: np.ndarray,
) -> int: ...
def lookup_log_cells(
    counts: np.ndarray,
    log_small: np.ndarray,
    minus: np.ndarray,
    out: np.ndarray,
    rest: np.ndarray,
) -> int: ...
