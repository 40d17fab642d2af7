// Values every gateway instance shares (signing keys, the secret-hash key), changed only by
// compare-and-set and watched for changes made elsewhere.

export interface SharedValues {
  getMeta(name: string): Promise<string | null>;
  /** Sets the value only if it is currently `expected` (null: absent). True when it was set; watchers are told. */
  compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean>;
  /**
   * Calls onChange after every change of the value through any store object (any instance), and also
   * when a change may have been missed (the watch just began or reconnected): onChange re-reads with
   * getMeta, and must not throw. Returns the function that stops the watch.
   */
  watchMeta(name: string, onChange: () => void): () => void;
}
