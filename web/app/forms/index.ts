export { checkbox, httpUrl, listOf, optionalText, requiredText, slugId } from '../schemas/fields.ts';
export { fixFor } from './fix-links.ts';
export { FormErrors } from './form-errors.tsx';
export { fixFrom, replyFor, useSchemaForm } from './use-schema-form.ts';
