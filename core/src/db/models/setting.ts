import { Schema, type InferSchemaType } from 'mongoose';

/** An instance-wide setting an admin changes at runtime, under its name (`_id`). */
export const settingSchema = new Schema(
  {
    _id: { type: String, required: true },
    value: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'settings', timestamps: true, versionKey: false, minimize: false },
);

export type SettingRecord = InferSchemaType<typeof settingSchema>;
