import { createHash } from 'node:crypto';
import {
  type DataSensitivity,
  atLeast,
  datasetRecord,
  isDataSensitivity,
  MAX_DATASET_NAME_LENGTH,
  maxSensitivity,
  sensitivityRank,
} from '../core/sensitivity.js';
import { toWellFormed } from '../core/well-formed.js';

export { MAX_DATASET_NAME_LENGTH };

/** What a shortened name ends with; a name that ends so is shortened too, even a short one. */
const SHORTENED = /…#[0-9a-f]{16}$/;

/**
 * `name`, or when too long its start and a hash of the whole. Distinct
 * names stay distinct (but for a hash collision): a name kept as it is
 * never looks like a shortened one.
 */
function boundedName(name: string): string {
  if (name.length <= MAX_DATASET_NAME_LENGTH && !SHORTENED.test(name)) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${toWellFormed(name.slice(0, 200))}…#${digest}`;
}

/** `dataset`, when it is a non-empty string. @throws TypeError otherwise. */
function checkedName(dataset: string): string {
  if (typeof dataset !== 'string' || dataset.length === 0) {
    throw new TypeError(`dataset name ${JSON.stringify(dataset)} must be a non-empty string`);
  }
  return dataset;
}

/** A frozen view of a session's private-data state. */
export interface PrivateDataState {
  readonly hasPrivateData: boolean;
  /** The highest level ever added; `public` when nothing was. */
  readonly sensitivity: DataSensitivity;
  /** Every dataset added, with the highest level it was added at. */
  readonly datasets: Readonly<Record<string, DataSensitivity>>;
}

/** Called after every rise of the level. */
export type EscalationListener = (
  previous: DataSensitivity,
  next: DataSensitivity,
  dataset: string,
) => void;

/**
 * The one-way private-data ratchet of a session. The level is the maximum
 * ever added; no method lowers it and session `restore()` does not touch it.
 */
export class PrivateData {
  #sensitivity: DataSensitivity = 'public';
  #datasets = new Map<string, DataSensitivity>();
  #version = 0;
  readonly #onEscalate: EscalationListener;
  readonly #onChange: (() => void) | undefined;

  /**
   * @internal Created by `Session`. `onChange` runs after every change of
   * the state (a new dataset, a higher level), escalating or not; the
   * session's store uses it to persist the change.
   */
  constructor(onEscalate: EscalationListener, onChange?: () => void) {
    this.#onEscalate = onEscalate;
    this.#onChange = onChange;
  }

  /** True once the level is above `public`. */
  get hasPrivateData(): boolean {
    // The level decides: a merged state can raise it without naming a dataset.
    return this.#sensitivity !== 'public';
  }

  /** The highest level ever added. */
  get sensitivity(): DataSensitivity {
    return this.#sensitivity;
  }

  /** Datasets and their levels; a copy, so changing it cannot lower the ratchet. */
  get datasets(): ReadonlyMap<string, DataSensitivity> {
    return new Map(this.#datasets);
  }

  /** Grows by one each time the state changes; cheap change detection. */
  get version(): number {
    return this.#version;
  }

  /**
   * Records that `dataset` entered the session at `sensitivity`. Re-adding
   * a dataset at a higher level raises it; a lower level changes nothing.
   * A lone surrogate in the name is kept as U+FFFD, as stores read it back,
   * and a name longer than {@link MAX_DATASET_NAME_LENGTH} keeps its start
   * and a hash of the whole (a server's marker names the dataset).
   *
   * @throws TypeError when `dataset` is empty or `sensitivity` is not a level.
   */
  add(dataset: string, sensitivity: DataSensitivity = 'confidential'): void {
    // Stores keep names as UTF-8, where a lone surrogate reads back as U+FFFD:
    // kept so here too, a name stored and read back is the name known.
    this.#add(boundedName(toWellFormed(checkedName(dataset))), sensitivity);
  }

  /**
   * Merges a state read from elsewhere (a store, another worker) as a
   * maximum: nothing already known is lowered. Its names are as a session
   * keeps them: a shortened one is kept as it is (shortened again, it would
   * be a new name on every read, and a store would never hold what the
   * session knows); only one past {@link MAX_DATASET_NAME_LENGTH} is
   * shortened.
   *
   * @throws TypeError for an empty name or a value that is not a level.
   */
  merge(state: PrivateDataState): void {
    for (const [dataset, level] of Object.entries(state.datasets)) {
      const name = toWellFormed(checkedName(dataset));
      this.#add(name.length <= MAX_DATASET_NAME_LENGTH ? name : boundedName(name), level);
    }
    if (isDataSensitivity(state.sensitivity) && this.#raise(state.sensitivity, 'merged state')) {
      this.#onChange?.();
    }
  }

  #add(name: string, sensitivity: DataSensitivity): void {
    if (!isDataSensitivity(sensitivity)) {
      throw new TypeError(
        `sensitivity ${JSON.stringify(sensitivity)} must be one of public, internal, confidential, secret`,
      );
    }
    const known = this.#datasets.get(name);
    if (known !== undefined && atLeast(known, sensitivity)) return;
    this.#datasets.set(
      name,
      known === undefined ? sensitivity : maxSensitivity(known, sensitivity),
    );
    this.#version += 1;
    this.#raise(sensitivity, name);
    this.#onChange?.();
  }

  /** Raises the level to `level` when higher; true when it rose. */
  #raise(level: DataSensitivity, dataset: string): boolean {
    const previous = this.#sensitivity;
    if (sensitivityRank(level) <= sensitivityRank(previous)) return false;
    this.#sensitivity = level;
    this.#version += 1;
    this.#onEscalate(previous, level, dataset);
    return true;
  }

  /** A frozen copy of the state. */
  toJSON(): PrivateDataState {
    return Object.freeze({
      hasPrivateData: this.hasPrivateData,
      sensitivity: this.#sensitivity,
      datasets: Object.freeze(datasetRecord(this.#datasets)),
    });
  }
}
