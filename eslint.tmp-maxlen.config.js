import base from './eslint.config.js'
export default [...base, { rules: { 'max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: false, ignoreUrls: true, ignoreComments: true, ignoreRegExpLiterals: true }] } }]
