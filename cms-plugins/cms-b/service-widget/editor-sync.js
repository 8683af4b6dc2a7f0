/*
 * Keeps the open editor in step with the assistant: when the widget reports changes to this post
 * (the `service-widget:changes` event), the stored post is read again and the editor shows it, so
 * what the user sees is what is stored, and a save from the editor sends the assistant's values,
 * not stale ones. Block editor: the post's record, its edits and its blocks. Classic editor: the
 * title, content and excerpt fields and the status the form would save.
 */
(function () {
  'use strict';
  var wp = window.wp;

  function refreshBlockEditor(record) {
    var core = wp.data.dispatch('core');
    var editor = wp.data.dispatch('core/editor');
    core.receiveEntityRecords('postType', record.type, [record], undefined, true);
    // Edits equal to the stored values are dropped: nothing stale is left to save.
    editor.editPost({ title: record.title.raw, excerpt: record.excerpt.raw, status: record.status });
    editor.resetEditorBlocks(wp.blocks.parse(record.content.raw), { __unstableShouldCreateUndoLevel: false });
  }

  function setValue(id, value) {
    var field = document.getElementById(id);
    if (field) field.value = value;
  }

  function refreshClassicEditor(record) {
    setValue('title', record.title.raw);
    setValue('excerpt', record.excerpt.raw);
    var tiny = window.tinymce && window.tinymce.get('content');
    if (tiny && !tiny.isHidden()) tiny.setContent(record.content.raw);
    setValue('content', record.content.raw);
    // The form saves the status it holds: the one stored now.
    setValue('hidden_post_status', record.status);
    setValue('original_post_status', record.status);
    var display = document.getElementById('post-status-display');
    if (display) display.textContent = record.status === 'publish' ? 'Published' : record.status === 'draft' ? 'Draft' : record.status;
  }

  document.addEventListener('service-widget:changes', function (event) {
    var postId = Number(event.detail && event.detail.itemId);
    if (!postId || !wp || !wp.apiFetch) return;
    wp.apiFetch({ path: '/wp/v2/posts/' + postId + '?context=edit' }).then(function (record) {
      var blockEditor = wp.data && wp.data.select('core/editor');
      if (blockEditor && blockEditor.getCurrentPostId && blockEditor.getCurrentPostId() === postId) refreshBlockEditor(record);
      else refreshClassicEditor(record);
    });
  });
})();
