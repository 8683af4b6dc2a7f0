/** The outbox key: the config, then the event's number zero-padded so keys sort in event order. */
export const deliveryId = (ref: string, seq: number) => `${ref}/${String(seq).padStart(12, '0')}`;
/** Every outbox row of one config: the `_id` range of its keys. */
export const deliveriesOf = (ref: string) => ({ _id: { $gte: `${ref}/`, $lt: `${ref}0` } });
